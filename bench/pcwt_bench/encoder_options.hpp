// encoder_options.hpp - how the benchmarks configure libpcwt encoders: option by option
// (pcwt_encoder_set_option), as every other caller of the library does; and the one place where a
// handle's options become a pcwt_encode_params again: the device-resident benchmark entry points
// of codec/src/gpu_backend.h (internal to libpcwt) take them in that form. Header only: used by
// pcwt-bench and by pcwt_bench_gpu (bench/bench_gpu.cpp).
#pragma once

#include <pcwt.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace pcwtbench {

// Options in the order they are set on a handle (the others keep the library's defaults).
using EncoderOptions = std::vector<std::pair<pcwt_option, int64_t>>;

// Sets each option in turn: PCWT_OK, or the status of the first one refused (the handle's
// pcwt_encoder_last_error says why; the options before it stay set).
inline pcwt_status set_encoder_options(pcwt_encoder *enc, const EncoderOptions &options)
{
    for (const auto &o : options) {
        const pcwt_status st = pcwt_encoder_set_option(enc, o.first, o.second);
        if (st != PCWT_OK)
            return st;
    }
    return PCWT_OK;
}

// The options of enc as a pcwt_encode_params (for the internal device-resident entry points
// only), read back with pcwt_encoder_get_option. False when the handle refuses one.
inline bool encoder_params(const pcwt_encoder *enc, pcwt_encode_params *p)
{
    pcwt_encode_params_default(p);
    int64_t v[14] = {};
    const pcwt_option o[14] = {PCWT_OPT_CODEC,       PCWT_OPT_PROFILE,          PCWT_OPT_LEVELS,
                               PCWT_OPT_GROUP_ROWS,  PCWT_OPT_GROUP_COLS,       PCWT_OPT_MIN_LL,
                               PCWT_OPT_COLOUR_TRANSFORM, PCWT_OPT_LOW_BITS,   PCWT_OPT_LIFTING_ORDER,
                               PCWT_OPT_JPEGLS_INTERLEAVE, PCWT_OPT_JPEGLS_RESTART, PCWT_OPT_BACKEND,
                               PCWT_OPT_VALUE_MAP,   PCWT_OPT_LEVEL1_FILTER};
    for (int i = 0; i < 14; ++i)
        if (pcwt_encoder_get_option(enc, o[i], &v[i]) != PCWT_OK)
            return false;
    p->codec = static_cast<pcwt_codec>(v[0]);
    p->profile = static_cast<pcwt_profile>(v[1]);
    p->levels = static_cast<uint32_t>(v[2]);
    p->group_rows = static_cast<uint32_t>(v[3]);
    p->group_cols = static_cast<uint32_t>(v[4]);
    p->min_ll = static_cast<uint32_t>(v[5]);
    p->colour_transform = static_cast<pcwt_colour_transform>(v[6]);
    p->low_bits = static_cast<pcwt_low_bits>(v[7]);
    p->lifting_order = static_cast<pcwt_lifting_order>(v[8]);
    p->jpegls_interleave = static_cast<uint32_t>(v[9]);
    p->jpegls_restart_interval = static_cast<uint32_t>(v[10]);
    p->backend = static_cast<pcwt_backend>(v[11]);
    p->value_map = static_cast<pcwt_value_map_mode>(v[12]);
    p->level1_filter = static_cast<pcwt_level1_filter>(v[13]);
    return true;
}

} // namespace pcwtbench
