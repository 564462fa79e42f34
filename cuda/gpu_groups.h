// gpu_groups.h - where a group lies: its band (from a global group index) and its elements, for
// the kernels of both profiles' group coders.
#pragma once

#include "gpu_types.h"

extern "C" {
#include "ec_group_coder.h"
}

__device__ inline uint32_t find_band(const GpuBand *bands, uint32_t n, uint64_t g)
{
    uint32_t lo = 0, hi = n; // last band with group_first <= g
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (bands[mid].group_first <= g) lo = mid; else hi = mid;
    }
    return lo;
}

struct GroupPos {
    uint32_t gx, gy, vr, vc; // first element and valid extent
};

__device__ inline GroupPos group_pos(const GpuBand &b, const GpuPlane &p, uint64_t g)
{
    const uint32_t k = uint32_t(g - b.group_first);
    GroupPos q;
    q.gx = (k / b.gcols) * p.group_rows;
    q.gy = (k % b.gcols) * p.group_cols;
    q.vr = min(p.group_rows, b.mrows - q.gx);
    q.vc = min(p.group_cols, b.mcols - q.gy);
    return q;
}

// A warp reading a group's elements row by row: lanes per row, a power of two, 32 for groups of 32
// or more columns; in narrower groups (the entropy profile's 64x16) the lanes take several rows
// at once instead of idling.
__device__ inline uint32_t lanes_per_row(uint32_t vc)
{
    return vc >= 32 ? 32u : 1u << (32 - __clz(vc - 1)); // vc >= 1
}

// A profile-1 group record (ec_group_coder.h) into a group's table entry, and back.
__device__ inline void gpu_group_set_record(GpuGroup &g, const pcwt_ec_record &r)
{
    g.bits = uint32_t(r.bits);
    g.entropy = uint16_t(r.entropy);
    g.alen = uint32_t(r.alen);
    g.rlen = uint32_t(r.rlen);
    g.head = uint16_t(r.head);
    g.bytes = uint32_t(pcwt_ec_record_bytes(&r));
}

__device__ inline pcwt_ec_record gpu_group_record(const GpuGroup &g)
{
    pcwt_ec_record r;
    r.entropy = g.entropy;
    r.bits = g.bits;
    r.alen = g.alen;
    r.rlen = g.rlen;
    r.head = g.head;
    return r;
}
