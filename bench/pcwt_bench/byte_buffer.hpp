// byte_buffer.hpp - a growable byte buffer that does not zero what it allocates: codec outputs are
// written into it over and over during timing, and std::vector::resize would clear the tail each
// time (a memset as large as the image, inside the timed region).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace pcwtbench {

class ByteBuffer {
public:
    // Make room for at least n bytes (contents kept only up to the current size) and return it.
    uint8_t *reserve(size_t n)
    {
        if (n > capacity_) {
            std::unique_ptr<uint8_t[]> grown(new uint8_t[n]);
            if (size_ > 0)
                std::memcpy(grown.get(), data_.get(), size_);
            data_ = std::move(grown);
            capacity_ = n;
        }
        return data_.get();
    }
    // Set the size to n (reserving as needed; new bytes are uninitialised).
    uint8_t *resize(size_t n)
    {
        uint8_t *p = reserve(n);
        size_ = n;
        return p;
    }
    void assign(const uint8_t *src, size_t n)
    {
        if (n > 0)
            std::memcpy(resize(n), src, n);
        else
            size_ = 0;
    }
    uint8_t *data() { return data_.get(); }
    const uint8_t *data() const { return data_.get(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

private:
    std::unique_ptr<uint8_t[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

} // namespace pcwtbench
