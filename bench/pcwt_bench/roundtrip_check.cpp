// roundtrip_check.cpp - see roundtrip_check.hpp.
#include "roundtrip_check.hpp"

#include <cstring>

#include "sample_words.hpp"

namespace pcwtbench {

bool same_words(const Image &img, const ByteBuffer &decoded, std::string &detail)
{
    if (decoded.size() != img.raw_bytes()) {
        detail = "decoded " + std::to_string(decoded.size()) + " bytes, expected " + std::to_string(img.raw_bytes());
        return false;
    }
    if (std::memcmp(decoded.data(), img.samples.data(), img.raw_bytes()) == 0)
        return true;
    const pcwt_image_desc &d = img.desc;
    const size_t n = sample_count(d);
    size_t first = n, count = 0;
    for (size_t i = 0; i < n; ++i) {
        if (load_word(decoded.data(), d.bits_allocated, i) != load_word(img.samples.data(), d.bits_allocated, i)) {
            if (first == n)
                first = i;
            ++count;
        }
    }
    const size_t pixel = d.components == 1 || d.planar ? first % (static_cast<size_t>(d.width) * d.height)
                                                       : first / d.components;
    detail = std::to_string(count) + " of " + std::to_string(n) + " samples differ; first at sample " +
             std::to_string(first) + " (row " + std::to_string(pixel / d.width) + ", column " +
             std::to_string(pixel % d.width) + "): expected " +
             std::to_string(load_word(img.samples.data(), d.bits_allocated, first)) + ", got " +
             std::to_string(load_word(decoded.data(), d.bits_allocated, first));
    return false;
}

} // namespace pcwtbench
