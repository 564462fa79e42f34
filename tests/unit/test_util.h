// test_util.h - small helpers shared by the unit tests: a deterministic RNG and one-call
// encode/decode wrappers over the public API.
#pragma once

#include "pcwt.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint32_t next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return static_cast<uint32_t>(s >> 16);
    }
    uint32_t below(uint32_t n) { return next() % n; }
};

inline pcwt_image_desc make_desc(uint32_t w, uint32_t h, uint32_t comps, uint32_t alloc,
                                 uint32_t stored, bool is_signed, bool planar = false)
{
    pcwt_image_desc d{};
    d.width = w;
    d.height = h;
    d.components = comps;
    d.bits_allocated = alloc;
    d.bits_stored = stored;
    d.is_signed = is_signed ? 1 : 0;
    d.planar = planar ? 1 : 0;
    return d;
}

// Encodes with the given params; returns the codestream (empty on failure, with *st set).
inline std::vector<uint8_t> encode(const pcwt_image_desc &d, const std::vector<uint8_t> &samples,
                                   const pcwt_encode_params *params = nullptr,
                                   pcwt_status *st = nullptr, std::string *err = nullptr)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    if (params)
        p = *params;
    std::vector<uint8_t> out(pcwt_encode_bound(&d));
    size_t written = 0;
    pcwt_status s = pcwt_encoder_set_params(e, &p);
    if (s == PCWT_OK)
        s = pcwt_encode(e, &d, samples.data(), samples.size(), out.data(), out.size(), &written);
    if (err)
        *err = pcwt_encoder_last_error(e);
    pcwt_encoder_destroy(e);
    if (st)
        *st = s;
    out.resize(s == PCWT_OK ? written : 0);
    return out;
}

inline pcwt_status decode(const std::vector<uint8_t> &cs, std::vector<uint8_t> &out,
                          std::string *err = nullptr)
{
    pcwt_decoder *d = pcwt_decoder_create();
    pcwt_header_info info;
    pcwt_status s = pcwt_read_header(cs.data(), cs.size(), &info);
    if (s == PCWT_OK) {
        out.assign(pcwt_image_size(&info.desc), 0);
        s = pcwt_decode(d, cs.data(), cs.size(), out.data(), out.size());
    }
    if (err)
        *err = pcwt_decoder_last_error(d);
    pcwt_decoder_destroy(d);
    return s;
}
