// group_coder_ec_gpu.h - what the GPU range coders of the entropy profile (profile 1) share: a
// thread per group runs the CPU's own group coder (codec/src/ec_group_coder.h) on the view of its
// band. Encode: group_coder_ec_encode_gpu.cu; decode: group_coder_ec_decode_gpu.cu (each has its
// own layout of the bit models in shared memory, codec/src/rangecoder.h).
#pragma once

#include "gpu_groups.h"
#include "gpu_kernels.h"

namespace pcwt_gpu_ec {

// A block's threads, their models interleaved in shared memory (the split layout of rangecoder.h
// is made for this many).
constexpr uint32_t EC_THREADS = PCWT_RC_GPU_LANES;

// The view of band bi that the CPU's group coder reads (low: the plane models its low bits).
__device__ inline pcwt_ec_band ec_view(const GpuBand *bands, uint32_t bi, const GpuBand &b,
                                       const GpuPlane &p, int qmax, int low, int32_t *i32,
                                       int8_t *i8)
{
    pcwt_ec_band v;
    v.coef = i32 + b.coef;
    v.mqd = i8 + b.mqd;
    v.cols = b.cols;
    v.mcols = b.mcols;
    if (b.parent >= 0) {
        const GpuBand &pb = bands[b.parent];
        v.parent = i8 + pb.mqd;
        v.pcols = pb.mcols;
    } else {
        v.parent = nullptr;
        v.pcols = 0;
    }
    v.qmax = qmax;
    const int is_ll = bi == p.band_first;
    v.cls = pcwt_ec_class(is_ll, b.level);
    v.exact = is_ll || b.level == 1;
    v.low = low;
    return v;
}

// Scratch of group g while it is coded: its range-coder stream, then its raw stream, each
// pcwt_ec_scratch(bits) bytes for a group of `bits` baseline bits. scan[g] is the exclusive scan of
// the baseline record sizes 4 + ceil(bits / 8), so the groups before g take 2 * scan[g] + 24 * g
// bytes.
template <typename Byte> __device__ inline Byte *ec_range_stream(Byte *scratch, const uint64_t *scan,
                                                                  uint64_t g)
{
    return scratch + 2 * scan[g] + 24 * g;
}

template <typename Byte>
__device__ inline Byte *ec_raw_stream(Byte *scratch, const uint64_t *scan, uint64_t g, uint64_t bits)
{
    return ec_range_stream(scratch, scan, g) + pcwt_ec_scratch(bits);
}

__device__ inline pcwt_ec_span ec_span(const GroupPos &q)
{
    return pcwt_ec_span{q.gx, q.gy, q.gx + q.vr, q.gy + q.vc};
}

} // namespace pcwt_gpu_ec
