// crafted_mqd.h - CRC-valid codestreams that decode to valid samples but declare an MQD above its
// element's largest level (FORMAT.md Sec. 4.1): no encoder writes them and every decoder, CPU and
// GPU, must refuse them with PCWT_ERR_CORRUPT. Shared by tests/unit and tests/gpu (both have
// codec/src and tests/ on their include path).
#pragma once

#include "pcwt.h"
#include "recrc.h"

extern "C" {
#include "group_coder.h"
#include "group_coder_ec.h"
}

#include <algorithm>
#include <cstdint>
#include <vector>

struct CraftedMqd {
    std::vector<uint8_t> cs;      // the crafted codestream (empty when building it failed)
    std::vector<uint8_t> samples; // what it decodes to without the MQD check
};

namespace crafted_detail {

inline std::vector<uint8_t> encode_cpu(const pcwt_image_desc &d, const std::vector<uint8_t> &img,
                                       pcwt_encode_params p)
{
    p.backend = PCWT_BACKEND_CPU;
    pcwt_encoder *e = pcwt_encoder_create();
    std::vector<uint8_t> out(pcwt_encode_bound(&d));
    size_t n = 0;
    pcwt_status st = pcwt_encoder_set_params(e, &p);
    if (st == PCWT_OK)
        st = pcwt_encode(e, &d, img.data(), img.size(), out.data(), out.size(), &n);
    pcwt_encoder_destroy(e);
    out.resize(st == PCWT_OK ? n : 0);
    return out;
}

// cs with plane 0's payload replaced (the only plane), its Qmax set, and the CRCs recomputed.
inline std::vector<uint8_t> replace_payload(std::vector<uint8_t> cs, pcwt_header_info info,
                                            int qmax, const std::vector<uint8_t> &payload)
{
    cs.resize(info.header_length);
    cs.insert(cs.end(), payload.begin(), payload.end());
    uint8_t *rec = &cs[PCWT_HEADER_FIXED];
    rec[2] = static_cast<uint8_t>(static_cast<int8_t>(qmax));
    for (int k = 0; k < 8; k++)
        rec[4 + k] = static_cast<uint8_t>(uint64_t(payload.size()) >> (8 * k));
    info.planes[0].payload_length = payload.size();
    fix_crcs(cs, info);
    return cs;
}

inline pcwt_image_desc gray8(uint32_t w, uint32_t h)
{
    pcwt_image_desc d{};
    d.width = w;
    d.height = h;
    d.components = 1;
    d.bits_allocated = 8;
    d.bits_stored = 8;
    return d;
}

} // namespace crafted_detail

// A 2x2 frame without transform: samples (1, 0, 0, 0), one element of MQD 0 and Qmax 0, recoded
// with Qmax 1 and MQD 1 (each magnitude in 2 bits, the top one 0): the same samples, its Qmax its
// top MQD; only the MQD check finds that no encoder writes it (an element without children).
inline CraftedMqd crafted_baseline_leaf()
{
    using namespace crafted_detail;
    CraftedMqd r;
    r.samples = {1, 0, 0, 0};
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.profile = PCWT_PROFILE_BASELINE;
    p.levels = 0;
    const auto cs = encode_cpu(gray8(2, 2), r.samples, p);
    pcwt_header_info info;
    if (cs.empty() || pcwt_read_header(cs.data(), cs.size(), &info) != PCWT_OK || info.levels != 0 ||
        info.planes[0].qmax != 0)
        return r;
    // r = 1, m = 1: '1'; then (|c| in 2 bits, sign) for 1, 0, 0, 0: 011 000 000 000 -> 13 bits
    r.cs = replace_payload(cs, info, 1, {13, 0, 0, 0, 0xB0, 0x00});
    return r;
}

// An all-zero 64x64 frame of two levels in `profile` whose first element of band `band` declares
// MQD 0 (Qmax 0) over zero coefficients: band 1 (HL of level 2) has children, all -1, so only the
// check against the children finds it; band 4 (HL of level 1) has none, and its parent in band 1
// declares 0 too (as its child reaches it). Recoded through the
// encoders' own group coders, so it is what a (broken) encoder with that MQD would write.
inline CraftedMqd crafted_zero_frame(pcwt_profile profile, uint32_t band)
{
    using namespace crafted_detail;
    CraftedMqd r;
    const pcwt_image_desc d = gray8(64, 64);
    r.samples.assign(64 * 64, 0);
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.levels = 2;
    p.profile = profile;
    const auto cs = encode_cpu(d, r.samples, p);
    pcwt_header_info info;
    if (cs.empty() || pcwt_read_header(cs.data(), cs.size(), &info) != PCWT_OK || info.levels != 2 ||
        info.plane_count != 1)
        return r;
    pcwt_plan plan;
    pcwt_plan_make(&plan, 64, 64, 2);
    pcwt_pyramid pyr{};
    if (pcwt_pyramid_prepare(&pyr, &plan) != PCWT_OK)
        return r;
    for (uint32_t b = 0; b < pyr.band_count; b++) {
        const pcwt_band &bd = pyr.band[b];
        std::fill(bd.coef, bd.coef + size_t(bd.rows) * bd.cols, 0);
        std::fill(bd.mqd, bd.mqd + size_t(bd.mrows) * bd.mcols, int8_t(-1));
    }
    for (int32_t b = int32_t(band); b > 0; b -= 3) // and its ancestors: their children reach it
        pyr.band[b].mqd[0] = 0;
    std::vector<uint8_t> payload;
    if (profile == PCWT_PROFILE_ENTROPY) {
        payload.resize(1 << 16);
        size_t n = 0;
        if (pcwt_ec_payload_encode(&pyr, 0, info.group_rows, info.group_cols,
                                   int(info.planes[0].low_bits), payload.data(), payload.size(),
                                   &n) == PCWT_OK) {
            payload.resize(n);
            r.cs = replace_payload(cs, info, 0, payload);
        }
    } else {
        payload.resize(size_t(pcwt_payload_size(&pyr, 0, info.group_rows, info.group_cols)));
        pcwt_payload_encode(&pyr, 0, info.group_rows, info.group_cols, payload.data());
        r.cs = replace_payload(cs, info, 0, payload);
    }
    pcwt_pyramid_free(&pyr);
    return r;
}
