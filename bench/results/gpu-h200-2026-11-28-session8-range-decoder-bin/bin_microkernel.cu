// Bins decoded in a loop, for static-bin-size.sh: the plain bin (its value branched on) and the
// flat bin, with the models in the default device layout or (-DPAIRED) the decoders' paired one.
#ifdef PAIRED
#define PCWT_RC_GPU_PAIRED_MODELS 1
#endif
extern "C" {
#include "rangecoder.h"
}
#ifdef PAIRED
#define NM (2 * PCWT_RC_GPU_PAIRED_MODELS_AT)
#else
#define NM (64 * 64)
#endif

template <bool Flat>
__global__ void bins(const uint8_t *s, size_t n, uint32_t *out, int iters)
{
    __shared__ pcwt_bit_model m[NM];
    pcwt_rc_dec d;
    pcwt_rc_dec_init(&d, s, n);
    uint32_t acc = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        pcwt_bit_model *const model = &m[(acc & 63) * 64 + threadIdx.x];
        if (Flat)
            acc = acc * 2 + pcwt_rc_decode_flat(&d, model);
        else if (pcwt_rc_decode(&d, model))
            acc = acc * 3 + 1;
        else
            acc++;
    }
    out[0] = acc;
}

template __global__ void bins<false>(const uint8_t *, size_t, uint32_t *, int);
template __global__ void bins<true>(const uint8_t *, size_t, uint32_t *, int);
