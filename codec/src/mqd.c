/* mqd.c - MQD bands and Qmax (Ao 2014, Sec. 3.2-3.3).
 * The MQD of element (x,y) of a band is the largest quantisation level QL = floor(log2|c|)
 * (-1 for 0) among its 2x2 coefficients and, for HL/LH/HH above the finest level, among the four
 * MQDs of the same orientation one level finer: the largest QL of the whole wavelet tree below.
 * Computed backward, finest level first. Children outside the finer MQD band (a result of lazy
 * even padding) are ignored. Qmax is the largest MQD of the top level. The GPU twin:
 * cuda/mqd_gpu.h (inlined by the forward transform) and cuda/mqd_gpu.cu (planes without one). */
#include "mqd.h"

static inline int8_t max8(int8_t a, int8_t b) { return a > b ? a : b; }

void pcwt_mqd_band(const int32_t *coef, uint32_t cols, int8_t *mqd, uint32_t mrows,
                   uint32_t mcols, const int8_t *child, uint32_t crows, uint32_t ccols)
{
    /* Children (2x+dx, 2y+dy) inside the finer band: both columns for y < yfull, the even one
     * for y < yhalf. */
    const uint32_t yfull = ccols / 2 < mcols ? ccols / 2 : mcols;
    const uint32_t yhalf = (ccols + 1) / 2 < mcols ? (ccols + 1) / 2 : mcols;
    for (uint32_t x = 0; x < mrows; x++) {
        const int32_t *r0 = coef + (size_t)(2 * x) * cols;
        const int32_t *r1 = r0 + cols;
        int8_t *out = mqd + (size_t)x * mcols;
        for (uint32_t y = 0; y < mcols; y++) {
            /* The top bit of the OR of the magnitudes is the top bit of their maximum. */
            const uint32_t a = pcwt_magnitude(r0[2 * y]) | pcwt_magnitude(r0[2 * y + 1]) |
                               pcwt_magnitude(r1[2 * y]) | pcwt_magnitude(r1[2 * y + 1]);
            out[y] = (int8_t)(31 - __builtin_clz(a | 1u) - (a == 0)); /* QL, -1 for 0 */
        }
        if (!child)
            continue;
        for (uint32_t xx = 2 * x; xx < 2 * x + 2 && xx < crows; xx++) {
            const int8_t *c = child + (size_t)xx * ccols;
            for (uint32_t y = 0; y < yfull; y++)
                out[y] = max8(out[y], max8(c[2 * y], c[2 * y + 1]));
            for (uint32_t y = yfull; y < yhalf; y++)
                out[y] = max8(out[y], c[2 * y]);
        }
    }
}

int pcwt_mqd_compute(pcwt_pyramid *p)
{
    const uint32_t L = p->plan.levels;
    for (uint32_t l = 1; l <= L; l++) {
        for (uint32_t o = 0; o < 3; o++) {
            pcwt_band *b = &p->band[pcwt_band_index(L, l, o)];
            const pcwt_band *c = l > 1 ? &p->band[pcwt_band_index(L, l - 1, o)] : NULL;
            pcwt_mqd_band(b->coef, b->cols, b->mqd, b->mrows, b->mcols, c ? c->mqd : NULL,
                          c ? c->mrows : 0, c ? c->mcols : 0);
        }
    }
    pcwt_band *ll = &p->band[0];
    pcwt_mqd_band(ll->coef, ll->cols, ll->mqd, ll->mrows, ll->mcols, NULL, 0, 0);

    int qmax = -1;
    const uint32_t top = L ? 4 : 1;
    for (uint32_t i = 0; i < top; i++) {
        const pcwt_band *b = &p->band[i];
        const size_t n = (size_t)b->mrows * b->mcols;
        for (size_t k = 0; k < n; k++)
            if (b->mqd[k] > qmax)
                qmax = b->mqd[k];
    }
    return qmax;
}
