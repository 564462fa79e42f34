#ifdef PAIRED
#define PCWT_RC_GPU_PAIRED_MODELS 1
#endif
extern "C" {
#include "rangecoder.h"
}
#ifdef PAIRED
#define NM (2 * PCWT_RC_GPU_PAIRED_MODELS_AT)
#define ST 64
#else
#define NM (64 * 64)
#define ST 64
#endif
__global__ void kflat(const uint8_t *s, size_t n, uint32_t *out, int iters)
{
    __shared__ pcwt_bit_model m[NM];
    pcwt_rc_dec d;
    pcwt_rc_dec_init(&d, s, n);
    uint32_t acc = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        acc = acc * 2 + pcwt_rc_decode_flat(&d, &m[(acc & 63) * ST + threadIdx.x]);
    out[0] = acc;
}
__global__ void kbr(const uint8_t *s, size_t n, uint32_t *out, int iters)
{
    __shared__ pcwt_bit_model m[NM];
    pcwt_rc_dec d;
    pcwt_rc_dec_init(&d, s, n);
    uint32_t acc = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        if (pcwt_rc_decode(&d, &m[(acc & 63) * ST + threadIdx.x])) acc = acc * 3 + 1; else acc++;
    out[0] = acc;
}
