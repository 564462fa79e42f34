// jpegls_test_util.hpp - helpers shared by the JPEG-LS tests: images in libpcwt's layout, the
// same samples in CharLS's layout, CharLS 2.4.1 encode/decode through its C API, and libpcwt's
// JPEG-LS encode through the public API.
#ifndef PCWT_JPEGLS_TEST_UTIL_HPP
#define PCWT_JPEGLS_TEST_UTIL_HPP

#include <charls/charls.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "jpegls_encoder.h"
#include "pcwt.h"

namespace jls_test {

// A frame in libpcwt's layout (host-order words, pixel-interleaved or planar).
struct Image {
    pcwt_image_desc desc{};
    std::vector<uint8_t> bytes;

    Image() = default;
    Image(uint32_t w, uint32_t h, uint32_t comps, uint32_t bits, uint32_t allocated = 0,
          uint32_t planar = 0, uint32_t is_signed = 0)
    {
        desc.width = w;
        desc.height = h;
        desc.components = comps;
        desc.bits_stored = bits;
        desc.bits_allocated = allocated ? allocated : (bits > 8 ? 16 : 8);
        desc.planar = comps > 1 ? planar : 0;
        desc.is_signed = is_signed;
        bytes.assign(pcwt_image_size(&desc), 0);
    }
    size_t samples() const { return static_cast<size_t>(desc.width) * desc.height * desc.components; }
    // Word index of (component, row, column).
    size_t index(uint32_t c, uint32_t y, uint32_t x) const
    {
        const size_t pix = static_cast<size_t>(y) * desc.width + x;
        if (desc.components > 1 && desc.planar)
            return static_cast<size_t>(c) * desc.width * desc.height + pix;
        return pix * desc.components + c;
    }
    uint32_t word(size_t i) const
    {
        if (desc.bits_allocated == 8)
            return bytes[i];
        uint16_t w;
        std::memcpy(&w, bytes.data() + 2 * i, 2);
        return w;
    }
    void set_word(size_t i, uint32_t v)
    {
        if (desc.bits_allocated == 8) {
            bytes[i] = static_cast<uint8_t>(v);
        } else {
            const uint16_t w = static_cast<uint16_t>(v);
            std::memcpy(bytes.data() + 2 * i, &w, 2);
        }
    }
    uint32_t mask() const { return (1u << desc.bits_stored) - 1u; }
    uint32_t maxval() const { return mask(); }
    // Stores a sample value given as its bits_stored-bit pattern; signed frames get the sign
    // extension above bits_stored, as DICOM writes them.
    void set(uint32_t c, uint32_t y, uint32_t x, uint32_t pattern)
    {
        uint32_t w = pattern & mask();
        if (desc.is_signed && desc.bits_stored < desc.bits_allocated &&
            (w >> (desc.bits_stored - 1)) != 0)
            w |= ((1u << desc.bits_allocated) - 1u) & ~mask();
        set_word(index(c, y, x), w);
    }
    uint32_t value(uint32_t c, uint32_t y, uint32_t x) const { return word(index(c, y, x)) & mask(); }
};

inline std::string describe(const pcwt_image_desc &d)
{
    std::ostringstream s;
    s << d.width << "x" << d.height << " c" << d.components << " ba" << d.bits_allocated << " bs"
      << d.bits_stored << (d.is_signed ? " signed" : "") << (d.planar ? " planar" : "");
    return s.str();
}

// The samples as CharLS takes and returns them: one byte per sample for P <= 8, else 16-bit host
// words; planar for interleave none, pixel-interleaved for line and sample; masked to P bits.
inline std::vector<uint8_t> charls_layout(const Image &img, uint32_t ilv)
{
    const pcwt_image_desc &d = img.desc;
    const size_t bps = d.bits_stored > 8 ? 2 : 1;
    std::vector<uint8_t> out(img.samples() * bps);
    size_t k = 0;
    auto put = [&](uint32_t v) {
        if (bps == 1) {
            out[k++] = static_cast<uint8_t>(v);
        } else {
            const uint16_t w = static_cast<uint16_t>(v);
            std::memcpy(out.data() + 2 * k++, &w, 2);
        }
    };
    if (d.components == 1 || ilv == 0) {
        for (uint32_t c = 0; c < d.components; ++c)
            for (uint32_t y = 0; y < d.height; ++y)
                for (uint32_t x = 0; x < d.width; ++x)
                    put(img.value(c, y, x));
    } else {
        for (uint32_t y = 0; y < d.height; ++y)
            for (uint32_t x = 0; x < d.width; ++x)
                for (uint32_t c = 0; c < d.components; ++c)
                    put(img.value(c, y, x));
    }
    return out;
}

struct Coded {
    std::vector<uint8_t> bytes;
    std::string error; // "" on success
};

// CharLS 2.4.1 with default parameters: NEAR 0, default presets and encoding options.
inline Coded charls_encode(const Image &img, uint32_t ilv)
{
    Coded r;
    const pcwt_image_desc &d = img.desc;
    const std::vector<uint8_t> src = charls_layout(img, d.components == 1 ? 0 : ilv);
    std::unique_ptr<charls_jpegls_encoder, void (*)(const charls_jpegls_encoder *)> enc(
        charls_jpegls_encoder_create(), charls_jpegls_encoder_destroy);
    if (!enc)
        return r.error = "charls_jpegls_encoder_create failed", r;
    charls_frame_info fi{d.width, d.height, static_cast<int32_t>(d.bits_stored),
                         static_cast<int32_t>(d.components)};
    auto check = [&](charls_jpegls_errc e, const char *what) {
        if (e != charls::jpegls_errc::success && r.error.empty())
            r.error = std::string(what) + ": " + charls_get_error_message(e);
    };
    check(charls_jpegls_encoder_set_frame_info(enc.get(), &fi), "set_frame_info");
    check(charls_jpegls_encoder_set_near_lossless(enc.get(), 0), "set_near_lossless");
    if (d.components > 1)
        check(charls_jpegls_encoder_set_interleave_mode(enc.get(),
                                                        static_cast<charls_interleave_mode>(ilv)),
              "set_interleave_mode");
    size_t size = 0;
    check(charls_jpegls_encoder_get_estimated_destination_size(enc.get(), &size),
          "get_estimated_destination_size");
    if (!r.error.empty())
        return r;
    size *= 3; // the estimate is the raw size plus 1 KiB; noise at worst can need more
    r.bytes.resize(size);
    check(charls_jpegls_encoder_set_destination_buffer(enc.get(), r.bytes.data(), r.bytes.size()),
          "set_destination_buffer");
    check(charls_jpegls_encoder_encode_from_buffer(enc.get(), src.data(), src.size(), 0),
          "encode_from_buffer");
    size_t written = 0;
    check(charls_jpegls_encoder_get_bytes_written(enc.get(), &written), "get_bytes_written");
    r.bytes.resize(r.error.empty() ? written : 0);
    return r;
}

struct Decoded {
    charls_frame_info info{};
    uint32_t ilv = 0;
    std::vector<uint8_t> pixels; // CharLS layout
    std::string error;
};

inline Decoded charls_decode(const uint8_t *data, size_t size)
{
    Decoded r;
    std::unique_ptr<charls_jpegls_decoder, void (*)(const charls_jpegls_decoder *)> dec(
        charls_jpegls_decoder_create(), charls_jpegls_decoder_destroy);
    if (!dec)
        return r.error = "charls_jpegls_decoder_create failed", r;
    auto check = [&](charls_jpegls_errc e, const char *what) {
        if (e != charls::jpegls_errc::success && r.error.empty())
            r.error = std::string("CharLS ") + what + ": " + charls_get_error_message(e);
        return r.error.empty();
    };
    if (!check(charls_jpegls_decoder_set_source_buffer(dec.get(), data, size), "set_source_buffer") ||
        !check(charls_jpegls_decoder_read_header(dec.get()), "read_header") ||
        !check(charls_jpegls_decoder_get_frame_info(dec.get(), &r.info), "get_frame_info"))
        return r;
    charls_interleave_mode mode{};
    if (!check(charls_jpegls_decoder_get_interleave_mode(dec.get(), &mode), "get_interleave_mode"))
        return r;
    r.ilv = static_cast<uint32_t>(mode);
    size_t out_size = 0;
    if (!check(charls_jpegls_decoder_get_destination_size(dec.get(), 0, &out_size),
               "get_destination_size"))
        return r;
    r.pixels.resize(out_size);
    check(charls_jpegls_decoder_decode_to_buffer(dec.get(), r.pixels.data(), r.pixels.size(), 0),
          "decode_to_buffer");
    return r;
}

inline Decoded charls_decode(const std::vector<uint8_t> &cs) { return charls_decode(cs.data(), cs.size()); }

// "" when the decoded frame holds exactly img's samples (masked to bits_stored), else a
// description of the first difference.
inline std::string compare_decoded(const Decoded &dec, const Image &img)
{
    if (!dec.error.empty())
        return dec.error;
    const pcwt_image_desc &d = img.desc;
    if (dec.info.width != d.width || dec.info.height != d.height ||
        dec.info.bits_per_sample != static_cast<int32_t>(d.bits_stored) ||
        dec.info.component_count != static_cast<int32_t>(d.components))
        return "CharLS decodes a different frame header: " + std::to_string(dec.info.width) + "x" +
               std::to_string(dec.info.height) + " P" + std::to_string(dec.info.bits_per_sample) +
               " c" + std::to_string(dec.info.component_count);
    const std::vector<uint8_t> expected = charls_layout(img, dec.ilv);
    if (dec.pixels.size() != expected.size())
        return "CharLS decoded " + std::to_string(dec.pixels.size()) + " bytes, expected " +
               std::to_string(expected.size());
    const size_t bps = d.bits_stored > 8 ? 2 : 1;
    for (size_t i = 0; i < expected.size(); i += bps)
        if (std::memcmp(expected.data() + i, dec.pixels.data() + i, bps) != 0)
            return "decoded sample " + std::to_string(i / bps) + " (CharLS layout, interleave " +
                   std::to_string(dec.ilv) + ") differs from the input";
    return "";
}

// libpcwt's JPEG-LS encoder through the public API, into a buffer of pcwt_jpegls_encode_bound.
struct Ours {
    pcwt_status status = PCWT_OK;
    std::string message;
    std::vector<uint8_t> bytes;
};

inline Ours pcwt_jls_encode(const Image &img, uint32_t ilv, uint32_t restart = 0,
                            size_t capacity = SIZE_MAX)
{
    Ours r;
    std::unique_ptr<pcwt_encoder, void (*)(pcwt_encoder *)> enc(pcwt_encoder_create(),
                                                                pcwt_encoder_destroy);
    pcwt_encode_params params;
    pcwt_encode_params_default(&params);
    params.codec = PCWT_CODEC_JPEGLS;
    params.jpegls_interleave = ilv;
    params.jpegls_restart_interval = restart;
    r.status = pcwt_encoder_set_params(enc.get(), &params);
    if (r.status != PCWT_OK) {
        r.message = pcwt_encoder_last_error(enc.get());
        return r;
    }
    if (capacity == SIZE_MAX)
        capacity = pcwt_jpegls_encode_bound(&img.desc, img.desc.components == 1 ? 0 : ilv, restart);
    r.bytes.resize(capacity + 1); // one spare byte: data() is never null
    size_t written = 0;
    r.status = pcwt_encode(enc.get(), &img.desc, img.bytes.data(), img.bytes.size(), r.bytes.data(),
                           capacity, &written);
    r.message = pcwt_encoder_last_error(enc.get());
    r.bytes.resize(r.status == PCWT_OK ? written : 0);
    return r;
}

// Index of the first differing byte, or -1 when equal (sizes included).
inline long first_difference(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b)
{
    const size_t n = a.size() < b.size() ? a.size() : b.size();
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i])
            return static_cast<long>(i);
    return a.size() == b.size() ? -1 : static_cast<long>(n);
}

} // namespace jls_test

#endif
