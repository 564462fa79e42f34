// recrc.h - recomputes a codestream's payload and header CRCs after a test has damaged it, so that
// the damage reaches the decoder's later checks (group lengths, stream ends, Qmax) instead of
// stopping at a checksum.
#pragma once

extern "C" {
#include "container.h"
}

#include <cstdint>
#include <vector>

inline void fix_crcs(std::vector<uint8_t> &cs, const pcwt_header_info &info)
{
    size_t off = info.header_length;
    for (uint32_t i = 0; i < info.plane_count; i++) {
        const size_t len = static_cast<size_t>(info.planes[i].payload_length);
        const uint32_t crc = pcwt_crc32(&cs[off], len);
        uint8_t *r = &cs[PCWT_HEADER_FIXED + PCWT_PLANE_RECORD * i + 12];
        for (int k = 0; k < 4; k++)
            r[k] = static_cast<uint8_t>(crc >> (8 * k));
        off += len;
    }
    const size_t hs = info.header_length;
    const uint32_t crc = pcwt_crc32(cs.data(), hs - 4);
    for (int k = 0; k < 4; k++)
        cs[hs - 4 + k] = static_cast<uint8_t>(crc >> (8 * k));
}
