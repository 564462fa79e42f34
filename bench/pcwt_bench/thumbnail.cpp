// thumbnail.cpp - see thumbnail.hpp.
#include "thumbnail.hpp"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "sample_words.hpp"

namespace pcwtbench {

std::string base64_encode(const unsigned char *data, size_t size)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((size + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < size; i += 3) {
        const uint32_t v = uint32_t{data[i]} << 16 | uint32_t{data[i + 1]} << 8 | data[i + 2];
        out += tbl[v >> 18];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += tbl[v & 63];
    }
    if (i < size) {
        uint32_t v = uint32_t{data[i]} << 16;
        if (i + 1 < size)
            v |= uint32_t{data[i + 1]} << 8;
        out += tbl[v >> 18];
        out += tbl[(v >> 12) & 63];
        out += i + 1 < size ? tbl[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

namespace {

struct TjDeleter {
    void operator()(void *h) const { tjDestroy(h); }
};

} // namespace

std::string thumbnail_data_uri(const Image &img, unsigned max_side)
{
    const pcwt_image_desc &d = img.desc;
    if (d.width == 0 || d.height == 0 || max_side == 0)
        return "";
    const uint32_t nc = d.components;
    const bool is_signed = d.is_signed != 0;
    auto value = [&](uint32_t y, uint32_t x, uint32_t c) {
        return value_of_word(load_word(img.samples.data(), d.bits_allocated, sample_index(d, y, x, c)),
                             d.bits_stored, is_signed);
    };
    // Window: the frame's range of values.
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (uint32_t y = 0; y < d.height; ++y)
        for (uint32_t x = 0; x < d.width; ++x)
            for (uint32_t c = 0; c < nc; ++c) {
                const int32_t v = value(y, x, c);
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    const double span = hi > lo ? static_cast<double>(hi) - lo : 1.0;
    const bool invert = img.photometric == "MONOCHROME1";
    // Box-filter down to max_side.
    const double scale = std::max(1.0, static_cast<double>(std::max(d.width, d.height)) / max_side);
    const uint32_t tw = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(d.width / scale)));
    const uint32_t th = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(d.height / scale)));
    std::vector<unsigned char> pix(static_cast<size_t>(tw) * th * nc);
    for (uint32_t ty = 0; ty < th; ++ty) {
        const uint32_t y0 = static_cast<uint32_t>(static_cast<uint64_t>(ty) * d.height / th);
        const uint32_t y1 = std::max(y0 + 1, static_cast<uint32_t>(static_cast<uint64_t>(ty + 1) * d.height / th));
        for (uint32_t tx = 0; tx < tw; ++tx) {
            const uint32_t x0 = static_cast<uint32_t>(static_cast<uint64_t>(tx) * d.width / tw);
            const uint32_t x1 = std::max(x0 + 1, static_cast<uint32_t>(static_cast<uint64_t>(tx + 1) * d.width / tw));
            for (uint32_t c = 0; c < nc; ++c) {
                double sum = 0;
                for (uint32_t y = y0; y < y1; ++y)
                    for (uint32_t x = x0; x < x1; ++x)
                        sum += value(y, x, c);
                double t = (sum / (static_cast<double>(y1 - y0) * (x1 - x0)) - lo) / span;
                if (invert)
                    t = 1.0 - t;
                pix[(static_cast<size_t>(ty) * tw + tx) * nc + c] =
                    static_cast<unsigned char>(std::clamp(std::lround(t * 255.0), 0L, 255L));
            }
        }
    }
    std::unique_ptr<void, TjDeleter> tj(tjInitCompress());
    if (!tj)
        return "";
    unsigned char *jpeg = nullptr;
    unsigned long jpeg_size = 0;
    const int rc = tjCompress2(tj.get(), pix.data(), static_cast<int>(tw), 0, static_cast<int>(th),
                               nc == 3 ? TJPF_RGB : TJPF_GRAY, &jpeg, &jpeg_size, nc == 3 ? TJSAMP_444 : TJSAMP_GRAY,
                               85, TJFLAG_ACCURATEDCT);
    if (rc != 0 || !jpeg) {
        tjFree(jpeg);
        return "";
    }
    std::string uri = "data:image/jpeg;base64," + base64_encode(jpeg, jpeg_size);
    tjFree(jpeg);
    return uri;
}

} // namespace pcwtbench
