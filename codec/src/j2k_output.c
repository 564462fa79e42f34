/* j2k_output.c - a decoded JPEG 2000 frame into the caller's samples on the CPU: the inverse
 * RCT, the DC level shift and clipping (j2k_output.h's rules, shared with the GPU), stored
 * interleaved in 8- or 16-bit words. */
#include "j2k_output.h"
#include "j2k_stages.h"

#include <string.h>

void pcwt_j2k_output(const pcwt_j2k_batch *b, const pcwt_j2k_frame *f, int32_t *coefs)
{
    const pcwt_j2k_tilecomp *tc = b->tcs + f->tc_first;
    const size_t n = (size_t)tc->width * tc->height;
    const uint32_t nc = f->components, prec = f->precision, sgn = f->is_signed;
    int32_t *p[3];
    for (uint32_t c = 0; c < nc; c++)
        p[c] = coefs + tc[c].coef_offset;
    if (f->rct && nc == 3)
        for (size_t i = 0; i < n; i++)
            pcwt_j2k_rct_inverse(p[0] + i, p[1] + i, p[2] + i);
    if (f->desc.bits_allocated == 8) {
        uint8_t *o = (uint8_t *)f->dst;
        for (uint32_t c = 0; c < nc; c++)
            for (size_t i = 0; i < n; i++)
                o[i * nc + c] = (uint8_t)pcwt_j2k_sample(p[c][i], prec, sgn);
    } else {
        uint16_t *o = (uint16_t *)f->dst;
        for (uint32_t c = 0; c < nc; c++)
            for (size_t i = 0; i < n; i++)
                o[i * nc + c] = (uint16_t)pcwt_j2k_sample(p[c][i], prec, sgn);
    }
}
