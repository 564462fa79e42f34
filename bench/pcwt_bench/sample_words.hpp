// sample_words.hpp - reading and writing the sample words of a frame in libpcwt's layout:
// host-order uint8_t (bits_allocated 8) or uint16_t (bits_allocated 16) words, components either
// pixel-interleaved or in planes (pcwt_image_desc.planar).
#pragma once

#include <pcwt.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pcwtbench {

inline size_t sample_count(const pcwt_image_desc &d)
{
    return static_cast<size_t>(d.width) * d.height * d.components;
}

inline uint32_t word_mask(uint32_t bits)
{
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

// The i-th word of a buffer of bits_allocated-bit words.
inline uint32_t load_word(const uint8_t *samples, uint32_t bits_allocated, size_t i)
{
    if (bits_allocated == 8)
        return samples[i];
    uint16_t w;
    std::memcpy(&w, samples + 2 * i, 2);
    return w;
}

inline void store_word(uint8_t *samples, uint32_t bits_allocated, size_t i, uint32_t w)
{
    if (bits_allocated == 8) {
        samples[i] = static_cast<uint8_t>(w);
        return;
    }
    const uint16_t v = static_cast<uint16_t>(w);
    std::memcpy(samples + 2 * i, &v, 2);
}

// The value the low `bits` bits of a word hold: two's complement when is_signed.
inline int32_t value_of_word(uint32_t w, uint32_t bits, bool is_signed)
{
    const uint32_t v = w & word_mask(bits);
    if (is_signed && bits > 0 && bits < 32 && (v >> (bits - 1)) != 0)
        return static_cast<int32_t>(static_cast<int64_t>(v) - (int64_t{1} << bits));
    return static_cast<int32_t>(v);
}

// Index of sample (row, col, comp) in a frame's word buffer.
inline size_t sample_index(const pcwt_image_desc &d, uint32_t row, uint32_t col, uint32_t comp)
{
    const size_t pixel = static_cast<size_t>(row) * d.width + col;
    if (d.components == 1)
        return pixel;
    if (d.planar)
        return static_cast<size_t>(comp) * d.width * d.height + pixel;
    return pixel * d.components + comp;
}

} // namespace pcwtbench
