/* j2k_idwt.c - the inverse reversible 5/3 DWT of JPEG 2000 on the CPU, resolution by resolution
 * in the Mallat layout of j2k_batch.h: each row of the resolution, then its columns (as whole
 * rows at a time, into a scratch plane, so that the loops run along memory). The rules are
 * j2k_idwt.h's, shared with the GPU. */
#include "j2k_idwt.h"
#include "j2k_stages.h"

#include <string.h>

/* One line of n samples: low-pass s[0..ceil(n/2)), high-pass d[0..n/2) into out. */
static void line(const int32_t *s, const int32_t *d, uint32_t n, int32_t *out)
{
    if (n == 1) {
        out[0] = s[0];
        return;
    }
    const uint32_t sn = (n + 1) / 2, dn = n / 2;
    for (uint32_t i = 0; i < sn; i++)
        out[2 * i] = pcwt_j2k_idwt_even(s[i], d[i ? i - 1 : 0], d[i < dn ? i : dn - 1]);
    for (uint32_t i = 0; i < dn; i++)
        out[2 * i + 1] = pcwt_j2k_idwt_odd(d[i], out[2 * i], out[2 * i + 2 < n ? 2 * i + 2 : 2 * i]);
}

/* The columns of a rw x rh region at a (row pitch w), whole rows at a time, into tmp (rw wide). */
static void columns(int32_t *a, uint32_t w, uint32_t rw, uint32_t rh, uint32_t lh, int32_t *tmp)
{
    if (rh == 1)
        return;
    const uint32_t dn = rh / 2;
    const int32_t *s = a, *d = a + (size_t)lh * w;
    for (uint32_t i = 0; i < lh; i++) {
        const int32_t *sl = s + (size_t)i * w;
        const int32_t *dl = d + (size_t)(i ? i - 1 : 0) * w, *dr = d + (size_t)(i < dn ? i : dn - 1) * w;
        int32_t *o = tmp + (size_t)(2 * i) * rw;
        for (uint32_t x = 0; x < rw; x++)
            o[x] = pcwt_j2k_idwt_even(sl[x], dl[x], dr[x]);
    }
    for (uint32_t i = 0; i < dn; i++) {
        const int32_t *dl = d + (size_t)i * w;
        const int32_t *xl = tmp + (size_t)(2 * i) * rw;
        const int32_t *xr = tmp + (size_t)(2 * i + 2 < rh ? 2 * i + 2 : 2 * i) * rw;
        int32_t *o = tmp + (size_t)(2 * i + 1) * rw;
        for (uint32_t x = 0; x < rw; x++)
            o[x] = pcwt_j2k_idwt_odd(dl[x], xl[x], xr[x]);
    }
    for (uint32_t y = 0; y < rh; y++)
        memcpy(a + (size_t)y * w, tmp + (size_t)y * rw, rw * sizeof *a);
}

void pcwt_j2k_idwt(const pcwt_j2k_tilecomp *tc, int32_t *coefs, int32_t *tmp)
{
    int32_t *a = coefs + tc->coef_offset;
    const uint32_t w = tc->width, h = tc->height, L = tc->levels;
    for (uint32_t r = 1; r <= L; r++) {
        const uint32_t rw = pcwt_j2k_res_size(w, L - r), rh = pcwt_j2k_res_size(h, L - r);
        const uint32_t lw = pcwt_j2k_res_size(w, L - r + 1), lh = pcwt_j2k_res_size(h, L - r + 1);
        if (rw > 1)
            for (uint32_t y = 0; y < rh; y++) {
                int32_t *row = a + (size_t)y * w;
                line(row, row + lw, rw, tmp);
                memcpy(row, tmp, rw * sizeof *row);
            }
        columns(a, w, rw, rh, lh, tmp);
    }
}
