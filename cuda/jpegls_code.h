// jpegls_code.h - what the GPU JPEG-LS encoder's stages share with host code: the coding
// parameters of T.87 A.2.1 / C.2.4.1.1 (default thresholds, RESET 64) and codewords packed in 32
// bits. Free of CUDA headers, so that host-only tests can include it and jpegls_chain_step.h.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define JLS_HD __host__ __device__
#else
#define JLS_HD
#endif
#if defined(__CUDA_ARCH__)
#define JLS_UNROLL _Pragma("unroll")
#else
#define JLS_UNROLL
#endif

constexpr uint32_t kJlsContexts = 366; // 364 regular (|Q| = 1..364) + 2 run interruption
constexpr uint32_t kJlsRunCtx = 364;   // context slot of RItype 0 (RItype 1 is 365)

// Coding parameters derived from P (T.87 A.2.1, C.2.4.1.1; default thresholds, RESET 64).
struct JlsParams {
    int32_t maxval, range, qbpp, limit, t1, t2, t3, a_init;
};

JLS_HD inline int32_t jls_gpu_clamp_t(int32_t i, int32_t j, int32_t maxval)
{
    return (i > maxval || i < j) ? j : i;
}

JLS_HD inline JlsParams jls_gpu_params(uint32_t bits)
{
    JlsParams p;
    p.maxval = (int32_t)((1u << bits) - 1u);
    p.range = p.maxval + 1;
    p.qbpp = (int32_t)bits;
    const int32_t bpp = bits < 2 ? 2 : (int32_t)bits;
    p.limit = 2 * (bpp + (bpp > 8 ? bpp : 8));
    if (p.maxval >= 128) {
        const int32_t f = ((p.maxval < 4095 ? p.maxval : 4095) + 128) / 256;
        p.t1 = jls_gpu_clamp_t(f * 1 + 2, 1, p.maxval);
        p.t2 = jls_gpu_clamp_t(f * 4 + 3, p.t1, p.maxval);
        p.t3 = jls_gpu_clamp_t(f * 17 + 4, p.t2, p.maxval);
    } else {
        const int32_t f = 256 / (p.maxval + 1);
        const int32_t a = 3 / f, b = 7 / f, c = 21 / f;
        p.t1 = jls_gpu_clamp_t(a > 2 ? a : 2, 1, p.maxval);
        p.t2 = jls_gpu_clamp_t(b > 3 ? b : 3, p.t1, p.maxval);
        p.t3 = jls_gpu_clamp_t(c > 4 ? c : 4, p.t2, p.maxval);
    }
    p.a_init = (p.range + 32) / 64 > 2 ? (p.range + 32) / 64 : 2;
    return p;
}

// A codeword, packed in 32 bits: `count` copies of the fill bit, then the `tail_bits` low bits of
// `tail`. Golomb codewords are zeros + (1, k bits); run-length codes are ones + (0, J bits) or 1.
JLS_HD inline uint32_t jls_code_pack(uint32_t fill, uint32_t count, uint32_t tail_bits,
                                                  uint32_t tail)
{
    return fill << 31 | count << 25 | tail_bits << 20 | tail;
}
JLS_HD inline uint32_t jls_code_fill(uint32_t c) { return c >> 31; }
JLS_HD inline uint32_t jls_code_count(uint32_t c) { return (c >> 25) & 63u; }
JLS_HD inline uint32_t jls_code_tail_bits(uint32_t c) { return (c >> 20) & 31u; }
JLS_HD inline uint32_t jls_code_tail(uint32_t c) { return c & 0xFFFFFu; }
JLS_HD inline uint32_t jls_code_length(uint32_t c)
{
    return jls_code_count(c) + jls_code_tail_bits(c);
}
