/* ec_group_runs.h - the entropy profile's group encoder in runs, for the GPU: the same bins, in the
 * same order, and so the same bytes as pcwt_ec_encode_group (ec_group_coder.h), in two alternating
 * phases. Elements are binarised ahead (each bin's model index and value into a small ring, the
 * raw bits straight into the raw stream) until a run of PCWT_EC_RUN bins is pending; then the
 * range coder codes exactly that run. On the GPU every lane of a warp codes its own group: coding
 * element by element keeps the lanes in step only within an element, where their unary codes
 * differ in length (8-11 of 32 lanes active, measured); a run keeps the coder's loop uniform.
 * The CPU codec keeps the direct loop; tests check that both write the same bytes.
 *
 * The ring is PCWT_EC_RING bytes in 32-bit words reached through a base pointer and a stride, as
 * the models are (1 on the CPU, the block size on the GPU: neighbouring threads' words in
 * different banks). An element whose bins may not fit (4r + 10 of them at most, r its reference:
 * r = 0 when m = r and each coefficient has q = 0 or 1; so only for coefficients of more than 22
 * bits) waits until the ring is empty, and one that does not fit even then (r >= 30) is coded as
 * it is binarised. */
#ifndef PCWT_EC_GROUP_RUNS_H
#define PCWT_EC_GROUP_RUNS_H

#include "ec_group_coder.h"

#define PCWT_EC_RING 128u /* bytes, a power of two */
#define PCWT_EC_RUN 32u   /* bins coded per run; RUN + the bins of most elements fit the ring */

/* Where an element's bins go: the ring, or (direct) the coder. */
typedef struct pcwt_ec_sink {
    uint32_t *ring;
    uint32_t rs;   /* stride of the ring's words */
    uint32_t head; /* bins put so far */
    int direct;
    pcwt_rc_enc *e;
    pcwt_bit_model *m;
    uint32_t ms;
} pcwt_ec_sink;

static PCWT_EC_INLINE PCWT_HD void pcwt_ec_put_bin(pcwt_ec_sink *s, uint32_t model, uint32_t bit)
{
    if (s->direct) {
        pcwt_rc_encode(s->e, &s->m[model * s->ms], bit);
        return;
    }
    const uint32_t i = s->head++ & (PCWT_EC_RING - 1u);
    ((uint8_t *)(s->ring + (size_t)(i >> 2) * s->rs))[i & 3u] = (uint8_t)(model | bit << 7);
}

/* The bins of coefficient c (pcwt_ec_encode_coef's), its MAG models from index mm; returns its sign. */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_bins_coef(pcwt_ec_sink *s, pcwt_bitwriter *w, uint32_t mm,
                                                    int mq, int coded, int left, int above,
                                                    int *found, int32_t c)
{
    const uint32_t a = pcwt_magnitude(c);
    const int q = a ? PCWT_LOG2(a) : -1;
    if (coded) {
        const int t = mq - q;
        for (int k = 0; k < t; k++)
            pcwt_ec_put_bin(s, mm + (uint32_t)pcwt_ec_min(k, 7), 1);
        if (q >= 0)
            pcwt_ec_put_bin(s, mm + (uint32_t)pcwt_ec_min(t, 7), 0);
    }
    *found |= q == mq;
    if (q < 0)
        return 0;
    if (q >= 1) {
        pcwt_ec_put_bin(s, (uint32_t)(PCWT_EC_MANT + pcwt_ec_min(q, 7) - 1), (a >> (q - 1)) & 1u);
        pcwt_bw_put(w, a & ((1u << (q - 1)) - 1u), (uint32_t)(q - 1));
    }
    pcwt_ec_put_bin(s, (uint32_t)pcwt_ec_sign_model(left, above), c < 0);
    return pcwt_ec_sign_of(c);
}

/* pcwt_ec_encode_group in runs: same arguments plus the ring (PCWT_EC_RING bytes as words, stride
 * rs); same result and bytes. */
static inline PCWT_HD uint64_t pcwt_ec_encode_group_runs(const pcwt_ec_band *b, const pcwt_ec_span *g,
                                                         const uint16_t *init, pcwt_bit_model *m,
                                                         uint32_t ms, uint32_t *ring, uint32_t rs,
                                                         pcwt_rc_enc *rc, pcwt_bitwriter *raw)
{
    const int32_t *const coef = b->coef;
    const int8_t *const mqd = b->mqd, *const parent = b->parent;
    const ptrdiff_t cols = b->cols, mcols = b->mcols, pcols = b->pcols;
    const int qmax = b->qmax, exact = b->exact;
    pcwt_rc_enc e = *rc;
    pcwt_bitwriter w = *raw;
    pcwt_ec_sink s = {ring, rs, 0, 0, &e, m, ms};
    uint64_t raw_bits = 0;
    uint32_t tail = 0;
    pcwt_ec_models_reset(m, ms, init);
    uint32_t x = g->gx, y = g->gy;
    int more = g->gx < g->xe && g->gy < g->ye;
    int sl0 = 0, sl1 = 0; /* signs of the left element's TR and BR */
    for (;;) {
        /* binarise elements ahead until a run is pending */
        while (more && s.head - tail < PCWT_EC_RUN) {
            const int8_t *const mrow = mqd + (ptrdiff_t)x * mcols;
            const int r = parent ? parent[(ptrdiff_t)(x / 2) * pcols + y / 2] : qmax;
            const int mq = mrow[y];
            if (r >= 0 && s.head - tail + 4u * (uint32_t)r + 10u > PCWT_EC_RING) {
                if (s.head != tail)
                    break; /* code what is pending first */
                s.direct = 1;
            }
            if (r < 0 || mq < 0) {
                if (r >= 0) {
                    raw_bits += (uint64_t)(r + 1);
                    int ec, zc;
                    pcwt_ec_mqd_context(mrow, mcols, g, x, y, r, &ec, &zc);
                    pcwt_ec_put_bin(&s, (uint32_t)(PCWT_EC_ZERO + zc), 1);
                }
                sl0 = sl1 = 0;
            } else {
                raw_bits += pcwt_element_bits(r, mq);
                int ec, zc;
                pcwt_ec_mqd_context(mrow, mcols, g, x, y, r, &ec, &zc);
                pcwt_ec_put_bin(&s, (uint32_t)(PCWT_EC_ZERO + zc), 0);
                const int d = r - mq;
                const uint32_t md = (uint32_t)(PCWT_EC_MQD + ec * 4);
                for (int k = 0; k < d; k++)
                    pcwt_ec_put_bin(&s, md + (uint32_t)pcwt_ec_min(k, 3), 1);
                if (d < r)
                    pcwt_ec_put_bin(&s, md + (uint32_t)pcwt_ec_min(d, 3), 0);
                const int32_t *const c0 = coef + (ptrdiff_t)(2 * x) * cols, *const c1 = c0 + cols;
                const int32_t *const s0p = c0 + 2 * y, *const s1p = c1 + 2 * y;
                const int sa0 = x > g->gx ? pcwt_ec_sign_of(s0p[-cols]) : 0;
                const int sa1 = x > g->gx ? pcwt_ec_sign_of(s0p[1 - cols]) : 0;
                const uint32_t mm = (uint32_t)(PCWT_EC_MAG + pcwt_ec_min(mq, 3) * 16);
                int found = 0;
                const int g0 = pcwt_ec_bins_coef(&s, &w, mm, mq, 1, sl0, sa0, &found, s0p[0]);
                const int g1 = pcwt_ec_bins_coef(&s, &w, mm + 8u * (uint32_t)found, mq, 1, g0, sa1,
                                                 &found, s0p[1]);
                const int g2 = pcwt_ec_bins_coef(&s, &w, mm + 8u * (uint32_t)found, mq, 1, sl1, g0,
                                                 &found, s1p[0]);
                const int g3 = pcwt_ec_bins_coef(&s, &w, mm + 8u * (uint32_t)found, mq,
                                                 !exact || found, g2, g1, &found, s1p[1]);
                sl0 = g1;
                sl1 = g3;
            }
            s.direct = 0;
            if (++y == g->ye) {
                y = g->gy;
                sl0 = sl1 = 0;
                more = ++x < g->xe;
            }
        }
        uint32_t n = s.head - tail;
        if (n == 0) {
            if (!more)
                break;
            continue; /* after an element coded directly */
        }
        if (n > PCWT_EC_RUN)
            n = PCWT_EC_RUN;
        /* code the run: the same loop on every lane */
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t i = (tail + k) & (PCWT_EC_RING - 1u);
            const uint32_t v = ((const uint8_t *)(ring + (size_t)(i >> 2) * rs))[i & 3u];
            pcwt_rc_encode(&e, &m[(v & 127u) * ms], v >> 7);
        }
        tail += n;
    }
    *rc = e;
    *raw = w;
    return raw_bits;
}

#endif /* PCWT_EC_GROUP_RUNS_H */
