/* ec_group_encode.h - the encoder of one entropy-profile group (docs/FORMAT.md Sec. 5, the coding
 * described in ec_group_coder.h): coefficient by coefficient into a range-coder stream and a raw
 * stream (the CPU's group_coder_ec.c and the GPU's group_coder_ec_encode_gpu.cu), and the same
 * coding as bins for coders that binarise first (the GPU's group_coder_ec_binarise_gpu.cu). */
#ifndef PCWT_EC_GROUP_ENCODE_H
#define PCWT_EC_GROUP_ENCODE_H

#include "ec_model.h"

/* Codes coefficient c of an element with MQD mq >= 0: its level distance t = mq - q as truncated
 * unary (bins "t > k", k = 0..mq: t ones, then a zero when t <= mq) with the MAG models mm (none
 * when coded is 0: q = mq implied), then mantissa and sign, the sign model from the signs of its
 * left and above neighbours. Sets *found (all ones) when q = mq; returns the sign of c
 * (pcwt_ec_sign_of). */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_encode_coef(pcwt_rc_enc *e, pcwt_bitwriter *w,
                                                      pcwt_bit_model *m, uint32_t ms,
                                                      pcwt_bit_model *mm, int mq, int coded,
                                                      int low, int left, int above,
                                                      uint32_t *found, int32_t c)
{
    /* the sign mask, and q from a | 1: GCC 12 branched on zero (at random) */
    const uint32_t neg = 0u - ((uint32_t)c >> 31), a = pcwt_magnitude(c);
    const int q = PCWT_LOG2(a | 1u) - (a == 0);
    if (coded) {
        const int t = mq - q;
        for (int k = 0; k < t; k++)
            pcwt_rc_encode(e, &mm[pcwt_ec_min(k, 7) * ms], 1);
        if (q >= 0)
            pcwt_rc_encode(e, &mm[pcwt_ec_min(t, 7) * ms], 0);
    }
    *found |= 0u - (uint32_t)(q == mq);
    if (q < 0)
        return PCWT_EC_ZERO_SIGN;
    if (q >= 1) {
        /* bit q-1 of a modelled, then bit q-2 where pcwt_ec_second_bit, bits n-1..0 raw (low:
         * bits n-1..2 raw, bits 1 and 0 modelled) */
        pcwt_rc_encode(e, &m[(PCWT_EC_MANT + pcwt_ec_min(q, 7) - 1) * ms], (a >> (q - 1)) & 1u);
        const int s2 = pcwt_ec_second_bit(low, q), n = q - 1 - s2;
        if (s2)
            pcwt_rc_encode(e, &m[(PCWT_EC_MANT2 + pcwt_ec_min(q, 7) - 2) * ms], (a >> (q - 2)) & 1u);
        if ((low & PCWT_EC_LOW_BITS) && q >= 2) {
            const uint32_t b1 = (a >> 1) & 1u;
            if (q >= 3) {
                pcwt_bw_put(w, (a >> 2) & ((1u << (n - 2)) - 1u), (uint32_t)(n - 2));
                pcwt_rc_encode(e, &m[PCWT_EC_LOW1 * ms], b1);
            }
            pcwt_rc_encode(e, &m[(PCWT_EC_LOW0 + b1) * ms], a & 1u);
        } else {
            pcwt_bw_put(w, a & ((1u << n) - 1u), (uint32_t)n);
        }
    }
    pcwt_rc_encode(e, &m[pcwt_ec_sign_model(left, above) * ms], neg & 1u);
    return (int)(~neg & 2u); /* pcwt_ec_sign_of(c), c != 0 */
}

/* Codes one group in entropy mode (models reset from init); returns the length in bits of its
 * baseline bit string, the raw-mode alternative. */
/* Inlined: the CPU calls it once per value of b->low, so that each copy knows it. */
static PCWT_EC_INLINE PCWT_HD uint64_t pcwt_ec_encode_group(const pcwt_ec_band *b, const pcwt_ec_span *g,
                                                    const uint16_t *init, pcwt_bit_model *m,
                                                    uint32_t ms, pcwt_rc_enc *rc,
                                                    pcwt_bitwriter *raw)
{
    /* Locals: the byte stores of the coders may alias anything reached through a pointer. */
    const int32_t *const coef = b->coef;
    const int8_t *const mqd = b->mqd, *const parent = b->parent;
    const ptrdiff_t cols = b->cols, mcols = b->mcols, pcols = b->pcols;
    const int qmax = b->qmax, exact = b->exact, low = b->low;
    pcwt_rc_enc e = *rc;
    pcwt_bitwriter w = *raw;
    uint64_t raw_bits = 0;
    pcwt_ec_models_reset(m, ms, init);
    for (uint32_t x = g->gx; x < g->xe; x++) {
        const int8_t *const mrow = mqd + (ptrdiff_t)x * mcols;
        const int8_t *const prow = parent ? parent + (ptrdiff_t)(x / 2) * pcols : NULL;
        const int32_t *const c0 = coef + (ptrdiff_t)(2 * x) * cols, *const c1 = c0 + cols;
        const int32_t *const ab = x > g->gx ? c0 - cols : NULL; /* the row above TL, TR */
        int sl0 = PCWT_EC_ZERO_SIGN, sl1 = PCWT_EC_ZERO_SIGN; /* the left element's TR, BR */
        for (uint32_t y = g->gy; y < g->ye; y++) {
            const int r = prow ? prow[y / 2] : qmax;
            const int mq = mrow[y];
            const int32_t *const s0p = c0 + 2 * y, *const s1p = c1 + 2 * y;
            if (r < 0 || mq < 0) {
                if (r >= 0) {
                    raw_bits += (uint64_t)(r + 1);
                    int ec, zc;
                    pcwt_ec_mqd_context(mrow, mcols, g, x, y, r, &ec, &zc);
                    pcwt_rc_encode(&e, &m[(PCWT_EC_ZERO + zc) * ms], 1);
                }
                sl0 = sl1 = PCWT_EC_ZERO_SIGN;
                continue;
            }
            raw_bits += pcwt_element_bits(r, mq);
            int ec, zc;
            pcwt_ec_mqd_context(mrow, mcols, g, x, y, r, &ec, &zc);
            pcwt_rc_encode(&e, &m[(PCWT_EC_ZERO + zc) * ms], 0);
            /* d = r - m as truncated unary: bins "d > k", k = 0..r-1 */
            const int d = r - mq;
            pcwt_bit_model *const md = &m[(PCWT_EC_MQD + ec * 4) * ms];
            for (int k = 0; k < d; k++)
                pcwt_rc_encode(&e, &md[pcwt_ec_min(k, 3) * ms], 1);
            if (d < r)
                pcwt_rc_encode(&e, &md[pcwt_ec_min(d, 3) * ms], 0);
            const int sa0 = ab ? pcwt_ec_sign_of(ab[2 * y]) : PCWT_EC_ZERO_SIGN;
            const int sa1 = ab ? pcwt_ec_sign_of(ab[2 * y + 1]) : PCWT_EC_ZERO_SIGN;
            pcwt_bit_model *const mm = &m[(PCWT_EC_MAG + pcwt_ec_min(mq, 3) * 16) * ms];
            const uint32_t mf = 8 * ms; /* MAG models of found = 1 follow those of found = 0 */
            uint32_t found = 0; /* all ones once found */
            const int g0 = pcwt_ec_encode_coef(&e, &w, m, ms, mm, mq, 1, low, sl0, sa0, &found,
                                               s0p[0]);
            const int g1 = pcwt_ec_encode_coef(&e, &w, m, ms, mm + (found & mf), mq, 1, low, g0,
                                               sa1, &found, s0p[1]);
            const int g2 = pcwt_ec_encode_coef(&e, &w, m, ms, mm + (found & mf), mq, 1, low, sl1,
                                               g0, &found, s1p[0]);
            const int g3 = pcwt_ec_encode_coef(&e, &w, m, ms, mm + (found & mf), mq,
                                               !exact || found, low, g2, g1, &found, s1p[1]);
            sl0 = g1;
            sl1 = g3;
        }
    }
    *rc = e;
    *raw = w;
    return raw_bits;
}

/* ---- the same coding as bins, for coders that binarise first (the GPU's) ---------------------- */

/* A bin as a byte: its model index (below 128) and, in bit 7, its bit. */
#define PCWT_EC_BIN(model, bit) ((uint8_t)((uint32_t)(model) | ((uint32_t)(bit) << 7)))

/* Most bins of one element: its zero bin, at most r <= 30 MQD bins and at most m + 2 per
 * coefficient (m <= 30; also with modelled low bits and second mantissa bits, which take
 * q >= 2); as many as the
 * baseline's longest element code. */
#define PCWT_EC_ELEMENT_BINS 159

/* Bins and raw bits of an element with reference r, MQD mq and coefficients TL, TR, BL, BR in c
 * (exact: the band is LL or of level 1; low: the plane's modelled bits, pcwt_ec_band.low); what
 * pcwt_ec_element_bins writes. */
static inline PCWT_HD void pcwt_ec_element_counts(int r, int mq, const int32_t c[4], int exact,
                                                  int low, uint32_t *bins, uint32_t *raw)
{
    *bins = r >= 0;
    *raw = 0;
    if (r < 0 || mq < 0)
        return;
    const int d = r - mq;
    uint32_t n = 1 + (uint32_t)d + (d < r), rb = 0;
    int found = 0;
    for (int k = 0; k < 4; k++) {
        const uint32_t a = pcwt_magnitude(c[k]);
        const int q = a ? PCWT_LOG2(a) : -1;
        if (k < 3 || !exact || found)
            n += (uint32_t)(q >= 0 ? mq - q + 1 : mq + 1);
        found |= q == mq;
        n += (uint32_t)(q >= 1) + (uint32_t)(q >= 0);
        rb += q >= 2 ? (uint32_t)(q - 1) : 0u;
        if ((low & PCWT_EC_LOW_BITS) && q >= 2) { /* bit 0, and bit 1 when q >= 3, move from raw
                                                     to modelled */
            const uint32_t lb = 1u + (uint32_t)(q >= 3);
            n += lb;
            rb -= lb;
        }
        const uint32_t s2 = (uint32_t)pcwt_ec_second_bit(low, q); /* bit q-2 likewise */
        n += s2;
        rb -= s2;
    }
    *bins = n;
    *raw = rb;
}

/* The bins of element (x, y) of group g, in the order and with the models of
 * pcwt_ec_encode_group, into out (PCWT_EC_ELEMENT_BINS at most); the raw bits of coefficient k
 * (TL, TR, BL, BR) are the low raw_n[k] bits of raw_v[k], MSB first. Returns the bins written. */
static inline PCWT_HD uint32_t pcwt_ec_element_bins(const pcwt_ec_band *b, const pcwt_ec_span *g,
                                                    uint32_t x, uint32_t y, uint8_t *out,
                                                    uint32_t raw_v[4], uint32_t raw_n[4])
{
    const ptrdiff_t cols = b->cols, mcols = b->mcols;
    const int8_t *const mrow = b->mqd + (ptrdiff_t)x * mcols;
    const int r = pcwt_ec_ref(b, x, y), mq = mrow[y];
    uint32_t n = 0;
    for (int k = 0; k < 4; k++)
        raw_v[k] = raw_n[k] = 0;
    if (r < 0)
        return 0;
    int ec, zc;
    pcwt_ec_mqd_context(mrow, mcols, g, x, y, r, &ec, &zc);
    out[n++] = PCWT_EC_BIN(PCWT_EC_ZERO + zc, mq < 0);
    if (mq < 0)
        return n;
    const int d = r - mq, md = PCWT_EC_MQD + ec * 4;
    for (int k = 0; k < d; k++)
        out[n++] = PCWT_EC_BIN(md + pcwt_ec_min(k, 3), 1);
    if (d < r)
        out[n++] = PCWT_EC_BIN(md + pcwt_ec_min(d, 3), 0);
    /* TL, TR, BL, BR with the signs of their left and above neighbours (zero outside the group) */
    const int32_t *const c0 = b->coef + (ptrdiff_t)(2 * x) * cols + 2 * y, *const c1 = c0 + cols;
    const int32_t c[4] = {c0[0], c0[1], c1[0], c1[1]};
    const int inx = x > g->gx, iny = y > g->gy;
    const int z = PCWT_EC_ZERO_SIGN;
    const int left[4] = {iny ? pcwt_ec_sign_of(c0[-1]) : z, pcwt_ec_sign_of(c[0]),
                         iny ? pcwt_ec_sign_of(c1[-1]) : z, pcwt_ec_sign_of(c[2])};
    const int above[4] = {inx ? pcwt_ec_sign_of(c0[-cols]) : z,
                          inx ? pcwt_ec_sign_of(c0[1 - cols]) : z, pcwt_ec_sign_of(c[0]),
                          pcwt_ec_sign_of(c[1])};
    const int mm = PCWT_EC_MAG + pcwt_ec_min(mq, 3) * 16;
    int found = 0;
    for (int k = 0; k < 4; k++) {
        const uint32_t a = pcwt_magnitude(c[k]);
        const int q = a ? PCWT_LOG2(a) : -1;
        if (k < 3 || !b->exact || found) {
            const int base = mm + 8 * found, t = mq - q;
            for (int j = 0; j < t; j++)
                out[n++] = PCWT_EC_BIN(base + pcwt_ec_min(j, 7), 1);
            if (q >= 0)
                out[n++] = PCWT_EC_BIN(base + pcwt_ec_min(t, 7), 0);
        }
        found |= q == mq;
        if (q < 0)
            continue;
        if (q >= 1) {
            out[n++] = PCWT_EC_BIN(PCWT_EC_MANT + pcwt_ec_min(q, 7) - 1, (a >> (q - 1)) & 1u);
            const int s2 = pcwt_ec_second_bit(b->low, q), nr = q - 1 - s2;
            if (s2)
                out[n++] = PCWT_EC_BIN(PCWT_EC_MANT2 + pcwt_ec_min(q, 7) - 2, (a >> (q - 2)) & 1u);
            if ((b->low & PCWT_EC_LOW_BITS) && q >= 2) {
                const uint32_t b1 = (a >> 1) & 1u;
                if (q >= 3) {
                    raw_v[k] = (a >> 2) & ((1u << (nr - 2)) - 1u);
                    raw_n[k] = (uint32_t)(nr - 2);
                    out[n++] = PCWT_EC_BIN(PCWT_EC_LOW1, b1);
                }
                out[n++] = PCWT_EC_BIN(PCWT_EC_LOW0 + b1, a & 1u);
            } else {
                raw_v[k] = a & ((1u << nr) - 1u);
                raw_n[k] = (uint32_t)nr;
            }
        }
        out[n++] = PCWT_EC_BIN(pcwt_ec_sign_model(left[k], above[k]), c[k] < 0);
    }
    return n;
}

#endif /* PCWT_EC_GROUP_ENCODE_H */
