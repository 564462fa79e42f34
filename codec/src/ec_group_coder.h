/* ec_group_coder.h - one group of the entropy profile (profile 1, docs/FORMAT.md Sec. 5), the
 * part that the CPU codec (group_coder_ec.c, a group at a time) and the CUDA twins
 * (cuda/group_coder_ec_encode_gpu.cu and group_coder_ec_decode_gpu.cu, a thread per group)
 * share, so that both write and accept the same bytes. Per element, in raster order within the
 * group:
 *
 *   MQD      a bit "m = -1" with model zero[z]; then, when m >= 0, d = r - m as truncated unary
 *            (bins "d > k", k = 0..r-1) with model mqd[e][min(k,3)]; z and e from the neighbouring
 *            MQDs (Sec. 5.3).
 *   per coefficient c of TL, TR, BL, BR (only when m >= 0), q = QL(c):
 *            t = m - q as truncated unary (bins "t > k", k = 0..m), model mag[min(m,3)][found][min(k,7)]
 *            (found: an earlier coefficient of this element has q = m); skipped, q = m implied, for the
 *            last coefficient of an LL or level-1 element when none of the first three reached m;
 *            when q >= 1: bit q-1 of |c| with model mant[min(q,7)-1], bits q-2..0 raw; in a plane
 *            that models its low bits (plane option bit 0), bits q-2..2 raw, then bit 1 (q >= 3)
 *            with model low1 and bit 0 (q >= 2) with model low0[bit 1];
 *            when c != 0: the sign (1 = negative) with model sign[left sign][above sign].
 *
 * Modelled bits go to the group's range-coder stream, raw bits MSB first to its raw stream. The
 * 106 bit models of a group are reached through a base pointer and a stride (1 on the CPU; the
 * block size on the GPU, where the models of a block's threads are interleaved in shared memory
 * so that neighbouring threads hit different banks). */
#ifndef PCWT_EC_GROUP_CODER_H
#define PCWT_EC_GROUP_CODER_H

#include "ec_tables.h"
#include "element.h"
#include "rangecoder.h"

#include <stddef.h>
#include <stdint.h>

/* Inlined into the group loop however large the group coder grows (a call per coefficient costs
 * the coder state its registers). */
#if defined(__CUDACC__)
#define PCWT_EC_INLINE __forceinline__
#elif defined(__GNUC__)
#define PCWT_EC_INLINE inline __attribute__((always_inline))
#else
#define PCWT_EC_INLINE inline
#endif

enum {
    PCWT_EC_ZERO = 0,                    /* ZERO[z], z = 0..5 */
    PCWT_EC_MQD = 6,                     /* MQD[e][min(k,3)], e = 0..4 */
    PCWT_EC_MAG = PCWT_EC_MQD + 5 * 4,   /* MAG[min(m,3)][found][min(k,7)] */
    /* LOW1 and LOW0[bit 1] (planes that model their low bits) take MAG[0][0][1..3], which no
     * element codes: m = 0 codes only k = 0. */
    PCWT_EC_LOW1 = PCWT_EC_MAG + 1,
    PCWT_EC_LOW0 = PCWT_EC_MAG + 2,
    PCWT_EC_MANT = PCWT_EC_MAG + 4 * 2 * 8, /* MANT[min(q,7)-1] */
    PCWT_EC_SIGN = PCWT_EC_MANT + 7,     /* SIGN[left+1][above+1] */
    PCWT_EC_ALL = PCWT_EC_SIGN + 9
};

/* What coding one group needs to know of its band. */
typedef struct pcwt_ec_band {
    int32_t *coef;          /* the band's coefficients, row stride cols */
    int8_t *mqd;            /* its MQDs, row stride mcols */
    const int8_t *parent;   /* the parent band's MQDs (row stride pcols); NULL on the top level */
    uint32_t cols, mcols, pcols;
    int qmax;               /* reference of the top level */
    int cls;                /* class of the initial probabilities (Sec. 5.4) */
    int exact;              /* LL and level 1: m is the largest QL of the element itself */
    int low;                /* the plane models the two low bits of magnitudes (Sec. 5.3) */
} pcwt_ec_band;

/* A group's region of elements: rows gx..xe-1, columns gy..ye-1. */
typedef struct pcwt_ec_span {
    uint32_t gx, gy, xe, ye;
} pcwt_ec_span;

/* Band class of the initial probabilities: 0 LL, 1 level 1, 2 level 2, 3 levels 3 and up. */
static inline PCWT_HD int pcwt_ec_class(int is_ll, uint32_t level)
{
    return is_ll ? 0 : level < 3 ? (int)level : 3;
}

#if defined(__CUDA_ARCH__) && defined(PCWT_RC_GPU_SPLIT_MODELS)
static_assert(PCWT_EC_ALL <= PCWT_RC_GPU_MODELS, "the GPU's split layout (rangecoder.h) holds them");
#endif

static inline PCWT_HD void pcwt_ec_models_reset(pcwt_bit_model *m, uint32_t ms, const uint16_t *init)
{
    for (int i = 0; i < PCWT_EC_ALL; i++)
        pcwt_model_init(&m[i * ms], init[i], PCWT_EC_INIT_N + 1);
}

static inline PCWT_HD int pcwt_ec_ref(const pcwt_ec_band *b, uint32_t x, uint32_t y)
{
    return b->parent ? b->parent[(size_t)(x / 2) * b->pcols + y / 2] : b->qmax;
}

/* Contexts of the MQD of an element with reference r from its neighbours left, above-left, above
 * and above-right that lie inside the group (na of them, nz with MQD -1, pm their largest MQD):
 * *e = min(max(r - pm, 0), 3), or 4 when na = 0; *z = 5 when na = 0, else 0 when nz = 0, 4 when
 * nz = na, otherwise 1 + floor(3 nz / na) (= nz + 1 for na = 2, 3; nz for na = 4). */
static inline PCWT_HD void pcwt_ec_mqd_context_from(int pm, int na, int nz, int r, int *e, int *z)
{
    const int d = r - pm;
    const int ec = d < 0 ? 0 : d > 3 ? 3 : d;
    const int zc = nz == 0 ? 0 : nz == na ? 4 : nz + (na < 4);
    *e = na ? ec : 4;
    *z = na ? zc : 5;
}

/* The same for element (x, y) of group g, its neighbours read from the band's MQDs: row is the
 * element's row, mcols the row stride. */
static inline PCWT_HD void pcwt_ec_mqd_context(const int8_t *row, ptrdiff_t mcols,
                                               const pcwt_ec_span *g, uint32_t x, uint32_t y, int r,
                                               int *e, int *z)
{
    int pm = -2, na = 0, nz = 0;
    if (y > g->gy) {
        pm = row[y - 1];
        na++;
        nz += pm < 0;
    }
    if (x > g->gx) {
        const int8_t *up = row - mcols;
        const int a = up[y];
        pm = a > pm ? a : pm;
        na++;
        nz += a < 0;
        if (y > g->gy) {
            const int c = up[y - 1];
            pm = c > pm ? c : pm;
            na++;
            nz += c < 0;
        }
        if (y + 1 < g->ye) {
            const int c = up[y + 1];
            pm = c > pm ? c : pm;
            na++;
            nz += c < 0;
        }
    }
    pcwt_ec_mqd_context_from(pm, na, nz, r, e, z);
}

/* A neighbour outside the group, for pcwt_ec_mqd_context_of (MQDs are -1 or more). */
#define PCWT_EC_OUTSIDE (-2)

/* The same from the neighbours' MQDs, left, above-left, above and above-right, given as values
 * (PCWT_EC_OUTSIDE for those outside the group): for a decoder that keeps them in registers. */
static inline PCWT_HD void pcwt_ec_mqd_context_of(int l, int al, int a, int ar, int r, int *e,
                                                  int *z)
{
    const int na = (l != PCWT_EC_OUTSIDE) + (al != PCWT_EC_OUTSIDE) + (a != PCWT_EC_OUTSIDE) +
                   (ar != PCWT_EC_OUTSIDE);
    const int nz = (l == -1) + (al == -1) + (a == -1) + (ar == -1);
    const int p0 = l > al ? l : al, p1 = a > ar ? a : ar;
    pcwt_ec_mqd_context_from(p0 > p1 ? p0 : p1, na, nz, r, e, z);
}

/* The sign of v as the coders carry it: 0 negative, 1 zero (also: outside the group's
 * coefficient area), 2 positive; the index of a sign model's row or column. */
#define PCWT_EC_ZERO_SIGN 1
static inline PCWT_HD int pcwt_ec_sign_of(int32_t v) { return 1 + (v > 0) - (v < 0); }

static inline PCWT_HD int pcwt_ec_min(int a, int b) { return a < b ? a : b; }

/* Model index of the sign from the signs of the left and above neighbours (pcwt_ec_sign_of). */
static inline PCWT_HD int pcwt_ec_sign_model(int left, int above)
{
    return PCWT_EC_SIGN + left * 3 + above;
}

/* ---- modelled low bits (plane option bit 0) ----------------------------------------------------
 * Some images carry structure in the two lowest bits of their coefficients: one that was decoded
 * from a lossy wavelet codestream or processed in a wavelet domain has its coefficients near a
 * lattice (|c| = 2 mod 4 for most of them in DX_J2K_0Padding), which raw bits cannot use. An
 * encoder counts, over a sample of a plane's coefficients (those of every fourth element row of
 * each band: a quarter of the reads, which the GPU encoder pays for in full), the bits the three
 * low-bit models would code and how many are 1, and models them when that saves at least 1/8 of
 * those bits. */

/* Element rows x of a band whose coefficients the decision counts: x = 0 mod this. */
#define PCWT_EC_LOW_ROW_STEP 4u

/* Counts of the low-bit models: [0] bit 1 of |c| >= 8; [1 + b] bit 0 of |c| >= 4 with bit 1 = b. */
typedef struct pcwt_ec_low_stats {
    uint64_t n[3], ones[3];
} pcwt_ec_low_stats;

/* Adds magnitude a to counts kept as 32-bit numbers (a GPU lane's, summed into 64 bits later). */
static inline PCWT_HD void pcwt_ec_low_tally(uint32_t a, uint32_t n[3], uint32_t ones[3])
{
    if (a < 4)
        return;
    const uint32_t b1 = (a >> 1) & 1u;
    n[0] += a >= 8;
    ones[0] += (a >= 8) & b1;
    n[1 + b1]++;
    ones[1 + b1] += a & 1u;
}

/* 1 when the low bits are worth modelling. Integer only, so that the CPU and the GPU decide
 * alike: a model that codes n bits, k of them 1, saves about n (2k/n - 1)^2 / (2 ln 2) bits; that
 * is summed with the bias in 16-bit fixed point and compared with 1/8 of all n, of which there
 * must be 1024 at least (a small plane's counts are biased by chance). */
static inline PCWT_HD int pcwt_ec_low_worth(const pcwt_ec_low_stats *s)
{
    uint64_t sum = 0, bits = 0;
    for (int i = 0; i < 3; i++) {
        const uint64_t n = s->n[i], k = s->ones[i];
        if (!n)
            continue;
        const uint64_t d = 2 * k > n ? 2 * k - n : n - 2 * k;
        const uint64_t f = (d << 16) / n; /* |2p - 1| << 16 */
        sum += n * ((f * f) >> 16);
        bits += n;
    }
    /* sum / 2^16 / (2 ln 2) >= bits / 8 */
    return bits >= 1024 && sum * 8000u >= bits * 1386u * 65536u;
}

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
    const uint32_t a = pcwt_magnitude(c);
    const int q = a ? PCWT_LOG2(a) : -1;
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
        /* bit q-1 of a modelled, bits q-2..0 raw (low: bits q-2..2 raw, bits 1 and 0 modelled) */
        pcwt_rc_encode(e, &m[(PCWT_EC_MANT + pcwt_ec_min(q, 7) - 1) * ms], (a >> (q - 1)) & 1u);
        if (low && q >= 2) {
            const uint32_t b1 = (a >> 1) & 1u;
            if (q >= 3) {
                pcwt_bw_put(w, (a >> 2) & ((1u << (q - 3)) - 1u), (uint32_t)(q - 3));
                pcwt_rc_encode(e, &m[PCWT_EC_LOW1 * ms], b1);
            }
            pcwt_rc_encode(e, &m[(PCWT_EC_LOW0 + b1) * ms], a & 1u);
        } else {
            pcwt_bw_put(w, a & ((1u << (q - 1)) - 1u), (uint32_t)(q - 1));
        }
    }
    pcwt_rc_encode(e, &m[pcwt_ec_sign_model(left, above) * ms], c < 0);
    return pcwt_ec_sign_of(c);
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
 * coefficient (m <= 30; also with modelled low bits, which take q >= 2); as many as the
 * baseline's longest element code. */
#define PCWT_EC_ELEMENT_BINS 159

/* Bins and raw bits of an element with reference r, MQD mq and coefficients TL, TR, BL, BR in c
 * (exact: the band is LL or of level 1; low: the plane models its low bits); what
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
        if (low && q >= 2) { /* bit 0, and bit 1 when q >= 3, move from raw to modelled */
            const uint32_t lb = 1u + (uint32_t)(q >= 3);
            n += lb;
            rb -= lb;
        }
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
            if (b->low && q >= 2) {
                const uint32_t b1 = (a >> 1) & 1u;
                if (q >= 3) {
                    raw_v[k] = (a >> 2) & ((1u << (q - 3)) - 1u);
                    raw_n[k] = (uint32_t)(q - 3);
                    out[n++] = PCWT_EC_BIN(PCWT_EC_LOW1, b1);
                }
                out[n++] = PCWT_EC_BIN(PCWT_EC_LOW0 + b1, a & 1u);
            } else {
                raw_v[k] = a & ((1u << (q - 1)) - 1u);
                raw_n[k] = (uint32_t)(q - 1);
            }
        }
        out[n++] = PCWT_EC_BIN(pcwt_ec_sign_model(left[k], above[k]), c[k] < 0);
    }
    return n;
}

/* ---- group records (Sec. 5.1) --------------------------------------------------------------- */

static inline PCWT_HD uint32_t pcwt_leb128_size(uint64_t v)
{
    uint32_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline PCWT_HD uint8_t *pcwt_leb128_put(uint8_t *d, uint64_t v)
{
    while (v >= 0x80) {
        *d++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *d++ = (uint8_t)v;
    return d;
}

/* Reads an unsigned LEB128 value below 2^32 in canonical (shortest) form; 0 on error. */
static inline PCWT_HD int pcwt_leb128_get(const uint8_t *s, size_t size, size_t *pos, uint32_t *out)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < 5; i++) {
        if (*pos >= size)
            return 0;
        const uint8_t c = s[(*pos)++];
        v |= (uint64_t)(c & 0x7F) << (7 * i);
        if (!(c & 0x80)) {
            if (i > 0 && c == 0)
                return 0; /* overlong */
            if (v > 0xFFFFFFFFu)
                return 0;
            *out = (uint32_t)v;
            return 1;
        }
    }
    return 0;
}

/* A group record's header: raw mode, the baseline bit string of `bits` bits; entropy mode, the
 * range-coder and raw streams of alen and rlen bytes. head: the bytes of its LEB128 numbers. */
typedef struct pcwt_ec_record {
    int entropy;
    uint64_t bits, alen, rlen;
    uint32_t head;
} pcwt_ec_record;

/* Bytes of the whole record. */
static inline PCWT_HD uint64_t pcwt_ec_record_bytes(const pcwt_ec_record *r)
{
    return r->head + (r->entropy ? r->alen + r->rlen : (r->bits + 7) / 8);
}

/* The record an encoder writes for a group coded into its streams: entropy mode unless the
 * range-coder stream overflowed its scratch or the entropy record would be larger than the raw
 * one (ties take entropy mode), so a plane is never larger than in the baseline profile. */
static inline PCWT_HD pcwt_ec_record pcwt_ec_record_choose(uint64_t raw_bits, uint64_t alen,
                                                           uint64_t rlen, int overflow)
{
    const uint32_t raw_head = pcwt_leb128_size(2 * raw_bits + 1);
    const uint32_t ent_head = pcwt_leb128_size(2 * alen) + pcwt_leb128_size(rlen);
    pcwt_ec_record r;
    r.bits = raw_bits;
    r.entropy = !overflow && ent_head + alen + rlen <= raw_head + (raw_bits + 7) / 8;
    r.alen = r.entropy ? alen : 0;
    r.rlen = r.entropy ? rlen : 0;
    r.head = r.entropy ? ent_head : raw_head;
    return r;
}

/* Writes the record's LEB128 numbers; returns where its payload starts. */
static inline PCWT_HD uint8_t *pcwt_ec_record_put_head(uint8_t *d, const pcwt_ec_record *r)
{
    if (!r->entropy)
        return pcwt_leb128_put(d, 2 * r->bits + 1);
    return pcwt_leb128_put(pcwt_leb128_put(d, 2 * r->alen), r->rlen);
}

enum {
    PCWT_EC_RECORD_OK = 0,
    PCWT_EC_RECORD_BAD_LENGTH,   /* the first number is missing or not canonical */
    PCWT_EC_RECORD_BITS_BEYOND,  /* a raw-mode bit string runs past the payload */
    PCWT_EC_RECORD_STREAMS_BEYOND /* entropy mode: a bad second number or streams past the payload */
};

/* Reads the header of the record at s, size bytes before the payload ends, and checks that the
 * record lies within them (Sec. 5.1); returns PCWT_EC_RECORD_OK or the error. r->head is the
 * number of bytes read, also on an error. */
static inline PCWT_HD int pcwt_ec_record_read(const uint8_t *s, size_t size, pcwt_ec_record *r)
{
    size_t at = 0;
    uint32_t h;
    const int ok = pcwt_leb128_get(s, size, &at, &h);
    r->head = (uint32_t)at;
    if (!ok)
        return PCWT_EC_RECORD_BAD_LENGTH;
    r->entropy = !(h & 1u);
    r->bits = r->entropy ? 0 : h >> 1;
    r->alen = r->entropy ? h >> 1 : 0;
    r->rlen = 0;
    if (!r->entropy)
        return (r->bits + 7) / 8 > size - at ? PCWT_EC_RECORD_BITS_BEYOND : PCWT_EC_RECORD_OK;
    uint32_t rlen;
    const int ok2 = pcwt_leb128_get(s, size, &at, &rlen);
    r->head = (uint32_t)at;
    r->rlen = rlen;
    if (!ok2 || r->alen > size - at || r->rlen > size - at - r->alen)
        return PCWT_EC_RECORD_STREAMS_BEYOND;
    return PCWT_EC_RECORD_OK;
}

/* Scratch bytes of each of a group's two streams while it is coded: a range-coder stream that
 * does not fit is longer than the raw record (which is then used), and the raw stream holds a
 * subset of the baseline bits. */
static inline PCWT_HD uint64_t pcwt_ec_scratch(uint64_t raw_bits)
{
    return (raw_bits + 7) / 8 + 16;
}

/* ---- decoder -------------------------------------------------------------------------------- */

/* MSB-first reader of a group's raw stream: zero bits past the end. */
typedef struct pcwt_ec_raw_reader {
#ifdef __CUDA_ARCH__
    pcwt_gpu_window in; /* word_window.h */
#else
    const uint8_t *p, *end;
    uint64_t acc; /* the next bits, MSB first; n of them are valid */
    uint32_t n;
    uint64_t past; /* zero bytes taken past the end */
#endif
} pcwt_ec_raw_reader;

static inline PCWT_HD void pcwt_ec_raw_init(pcwt_ec_raw_reader *r, const uint8_t *src, size_t size)
{
#ifdef __CUDA_ARCH__
    pcwt_gpu_window_init(&r->in, src, src + size);
#else
    r->p = src;
    r->end = src + size;
    r->acc = 0;
    r->n = 0;
    r->past = 0;
#endif
}

/* Bits taken so far from the stream that starts at src. */
static inline PCWT_HD uint64_t pcwt_ec_raw_pos(const pcwt_ec_raw_reader *r, const uint8_t *src)
{
#ifdef __CUDA_ARCH__
    return pcwt_gpu_window_pos(&r->in, src);
#else
    return 8 * ((uint64_t)(r->p - src) + r->past) - r->n;
#endif
}

/* Reads nbits (0..30). */
static inline PCWT_HD uint32_t pcwt_ec_raw_get(pcwt_ec_raw_reader *r, uint32_t nbits)
{
#ifdef __CUDA_ARCH__
    const uint32_t v = (pcwt_gpu_window_top(&r->in) >> 1) >> (31 - nbits);
    pcwt_gpu_window_skip(&r->in, nbits);
    return v;
#else
    if (r->n < nbits) {
        if (r->end - r->p >= 8) { /* one unaligned big-endian load */
            uint64_t w;
            __builtin_memcpy(&w, r->p, 8);
            w = __builtin_bswap64(w);
            r->acc |= w >> r->n;
            r->p += (63 - r->n) >> 3;
            r->n |= 56;
        } else {
            while (r->n <= 56) {
                uint64_t c = 0;
                if (r->p < r->end)
                    c = *r->p++;
                else
                    r->past++;
                r->acc |= c << (56 - r->n);
                r->n += 8;
            }
        }
    }
    const uint32_t v = (uint32_t)((r->acc >> 1) >> (63 - nbits));
    r->acc <<= nbits;
    r->n -= nbits;
    return v;
#endif
}

/* A truncated-unary run: bins "t > k" with the models base[min(k, cap) * ms], k = 0, 1, ..., up to
 * the first 0 bin or limit 1 bins; returns t, the 1 bins. */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_decode_run(pcwt_rc_dec *rc, pcwt_bit_model *base,
                                                     uint32_t ms, int cap, int limit)
{
    int t = 0;
#ifdef __CUDA_ARCH__
    /* A GPU thread issues in order: the next bin's model is loaded while this bin decodes, so
     * that the shared-memory latency is off the chain (a run past cap keeps its one model in
     * registers). */
    if (limit <= 0)
        return 0;
    pcwt_bit_model *at = base, *ahead = cap > 0 ? base + ms : base;
    pcwt_bit_model cur = *at;
    for (;;) {
        const pcwt_bit_model next = *ahead;
        const uint32_t bit = pcwt_rc_decode(rc, &cur);
        *at = cur;
        if (!bit || ++t >= limit)
            break;
        if (ahead != at) /* past cap the model stays, and next is the one before this update */
            cur = next;
        at = ahead;
        ahead = t < cap ? ahead + ms : ahead;
    }
#else
    while (t < limit && pcwt_rc_decode(rc, &base[pcwt_ec_min(t, cap) * ms]))
        t++;
#endif
    return t;
}

/* Decodes coefficient *dst of an element with MQD mq >= 0: its level distance t with the MAG
 * models mm (none when coded is 0: q = mq implied), mantissa and sign; the sign model from the
 * signs of its left and above neighbours. Sets *found (all ones) when q = mq; returns the sign
 * of *dst (pcwt_ec_sign_of). */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_decode_coef(pcwt_rc_dec *rc, pcwt_ec_raw_reader *raw,
                                              pcwt_bit_model *m, uint32_t ms,
                                              pcwt_bit_model *mm, int mq, int coded, int low,
                                              int left, int above, uint32_t *found, int32_t *dst)
{
    pcwt_bit_model *const sm = &m[pcwt_ec_sign_model(left, above) * ms];
#ifdef __CUDA_ARCH__
    pcwt_bit_model sign = *sm; /* loaded ahead of the level bins, which do not touch it */
#endif
    int t = 0;
    if (coded) {
#ifdef __CUDA_ARCH__
        t = pcwt_ec_decode_run(rc, mm, ms, 7, mq + 1);
#else
        if (mq < 8) /* t <= mq + 1: no model index to clamp before the last bin */
            while (pcwt_rc_decode(rc, &mm[t * ms]) && ++t <= mq) {
            }
        else
            while (pcwt_rc_decode(rc, &mm[pcwt_ec_min(t, 7) * ms]) && ++t <= mq) {
            }
#endif
    }
    const int q = mq - t;
    *found |= 0u - (uint32_t)(t == 0);
    if (q < 0) {
        *dst = 0;
        return PCWT_EC_ZERO_SIGN;
    }
    uint32_t v = 1;
    if (q >= 1) {
        v = 2u | pcwt_rc_decode_flat(rc, &m[(PCWT_EC_MANT + pcwt_ec_min(q, 7) - 1) * ms]);
        if (low && q >= 2) {
            if (q >= 3) {
                v = (v << (q - 3)) | pcwt_ec_raw_get(raw, (uint32_t)(q - 3));
                v = (v << 1) | pcwt_rc_decode_flat(rc, &m[PCWT_EC_LOW1 * ms]);
            }
            v = (v << 1) | pcwt_rc_decode_flat(rc, &m[(PCWT_EC_LOW0 + (v & 1u)) * ms]);
        } else {
            v = (v << (q - 1)) | pcwt_ec_raw_get(raw, (uint32_t)(q - 1));
        }
    }
#ifdef __CUDA_ARCH__
    const uint32_t neg = pcwt_rc_decode_flat(rc, &sign);
    *sm = sign;
#else
    const uint32_t neg = pcwt_rc_decode_flat(rc, sm);
#endif
    *dst = (int32_t)((v ^ (0u - neg)) + neg);
    return 2 - 2 * (int)neg;
}

/* An element's coefficients TL, TR (row d0) and BL, BR (row d1) to the band. A GPU thread's
 * stores each take a sector of their own (the lanes of a warp decode as many groups), so a pair
 * goes out as one 8-byte store where the rows allow it. */
static inline PCWT_HD void pcwt_ec_store_element(int32_t *d0, int32_t *d1, const int32_t v[4])
{
#ifdef __CUDA_ARCH__
    if ((((uintptr_t)d0 | (uintptr_t)d1) & 7u) == 0) {
        *(int2 *)d0 = make_int2(v[0], v[1]);
        *(int2 *)d1 = make_int2(v[2], v[3]);
        return;
    }
#endif
    d0[0] = v[0];
    d0[1] = v[1];
    d1[0] = v[2];
    d1[1] = v[3];
}

#ifdef __CUDA_ARCH__
/* The next MQD of a row that the GPU reads through a window (word_window.h): a lane's loads each
 * take a sector of their own, and a load one element ahead arrives late when the elements between
 * are all-zero ones. A word may hold bytes of the neighbouring groups, which are not used. (The
 * CPU reads the bytes where it needs them.) */
static inline __device__ int pcwt_ec_mqd_next(pcwt_gpu_window *r)
{
    const int v = (int)(int8_t)(pcwt_gpu_window_top(r) >> 24);
    pcwt_gpu_window_skip(r, 8);
    return v;
}
#endif

/* An element's MQD to its row: on the GPU gathered into aligned 32-bit words (row[y] with the
 * group's columns gy..ye-1; *w collects the bytes of y's word). */
static inline PCWT_HD void pcwt_ec_put_mqd(int8_t *row, uint32_t y, uint32_t gy, uint32_t ye,
                                           int mq, uint32_t *w)
{
#ifdef __CUDA_ARCH__
    const uint32_t k = (uint32_t)(uintptr_t)(row + y) & 3u; /* byte of the word */
    *w |= (uint32_t)(uint8_t)mq << (8 * k);
    if (k == 3 && y >= gy + 3) {
        *(uint32_t *)(row + y - 3) = *w;
        *w = 0;
    } else if (k == 3 || y + 1 == ye) { /* a word the group shares with its neighbours */
        const uint32_t lo = k - (y - gy < k ? y - gy : k);
        for (uint32_t i = lo; i <= k; i++)
            row[y - k + i] = (int8_t)(*w >> (8 * i));
        *w = 0;
    }
#else
    (void)gy;
    (void)ye;
    (void)w;
    row[y] = (int8_t)mq;
#endif
}

/* An element that pcwt_ec_put_element holds back, to go out with the next one. */
typedef struct pcwt_ec_held {
    int32_t v[4];
    int n;
} pcwt_ec_held;

/* Stores an element's coefficients as pcwt_ec_store_element does (last: the group's last element
 * of the row). On the GPU, where the rows are 16-byte aligned, an element waits in *h for the
 * next one, and the two go out as one 16-byte store per row. */
static inline PCWT_HD void pcwt_ec_put_element(int32_t *d0, int32_t *d1, int last,
                                               const int32_t v[4], pcwt_ec_held *h)
{
#ifdef __CUDA_ARCH__
    if (h->n) {
        *(int4 *)(d0 - 2) = make_int4(h->v[0], h->v[1], v[0], v[1]);
        *(int4 *)(d1 - 2) = make_int4(h->v[2], h->v[3], v[2], v[3]);
        h->n = 0;
        return;
    }
    if (!last && (((uintptr_t)d0 | (uintptr_t)d1) & 15u) == 0) {
        for (int i = 0; i < 4; i++)
            h->v[i] = v[i];
        h->n = 1;
        return;
    }
#else
    (void)last;
    (void)h;
#endif
    pcwt_ec_store_element(d0, d1, v);
}

/* Decodes one entropy-mode group from its range-coder stream a (alen bytes) and raw stream rs
 * (rlen bytes), storing each element's MQD and coefficients as soon as it has them (on the GPU
 * gathered into wider stores); returns 0 when the streams are inconsistent. The contexts of an
 * element need its left, above-left, above and above-right neighbours' MQDs and the signs of the
 * coefficients left of and above its own: the left ones are carried in registers, the MQDs of
 * the row above (written one row earlier) and of the parent row are read ahead
 * (pcwt_ec_mqd_next), and the coefficients above are loaded an element ahead, so that a GPU
 * thread, which waits for each load at its first use, does not wait for memory between the bins
 * of an element. */
/* Inlined where a decoder calls it once per value of b->low, so that each copy knows it. */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_decode_group(const pcwt_ec_band *b, const pcwt_ec_span *g,
                                               const uint16_t *init, pcwt_bit_model *m, uint32_t ms,
                                               const uint8_t *a, size_t alen, const uint8_t *rs,
                                               size_t rlen)
{
    if (alen && a[alen - 1] == 0)
        return 0; /* trailing zero bytes are never written */
    /* Locals: the MQD stores (int8_t) may alias anything reached through a pointer. */
    int32_t *const coef = b->coef;
    int8_t *const mqd = b->mqd;
    const int8_t *const parent = b->parent;
    const ptrdiff_t cols = b->cols, mcols = b->mcols, pcols = b->pcols;
    const int qmax = b->qmax, exact = b->exact, low = b->low;
    const uint32_t gy = g->gy, ye = g->ye;
    pcwt_ec_models_reset(m, ms, init);
    pcwt_rc_dec rc;
    pcwt_rc_dec_init(&rc, a, alen);
    pcwt_ec_raw_reader raw;
    pcwt_ec_raw_init(&raw, rs, rlen);
    for (uint32_t x = g->gx; x < g->xe; x++) {
        int8_t *const mrow = mqd + (ptrdiff_t)x * mcols;
        const int8_t *const prow = parent ? parent + (ptrdiff_t)(x / 2) * pcols : NULL;
        int32_t *const c0 = coef + (ptrdiff_t)(2 * x) * cols, *const c1 = c0 + cols;
        const int inx = x > g->gx;
        const int8_t *const up = inx ? mrow - mcols : NULL; /* the MQDs of the row above */
        const int32_t *const ab = inx ? c0 - cols : NULL;   /* the coefficients above TL, TR */
        int sl0 = PCWT_EC_ZERO_SIGN, sl1 = PCWT_EC_ZERO_SIGN; /* the left element's TR, BR */
        int ml = PCWT_EC_OUTSIDE, mal = PCWT_EC_OUTSIDE; /* MQDs left and above-left */
        /* what the next element needs from memory (on the GPU the parent row from gy / 2 on and
         * the row above from gy on go through readers) */
#ifdef __CUDA_ARCH__
        pcwt_gpu_window pr = {0}, ur = {0}; /* end: past the last byte used */
        if (prow)
            pcwt_gpu_window_init(&pr, (const uint8_t *)(prow + gy / 2),
                                 (const uint8_t *)(prow + (ye - 1) / 2 + 1));
        if (up)
            pcwt_gpu_window_init(&ur, (const uint8_t *)(up + gy), (const uint8_t *)(up + ye));
        int ma = up ? pcwt_ec_mqd_next(&ur) : PCWT_EC_OUTSIDE; /* above */
        int r_next = prow ? pcwt_ec_mqd_next(&pr) : qmax;
        int mar_next = up && gy + 1 < ye ? pcwt_ec_mqd_next(&ur) : PCWT_EC_OUTSIDE;
#else
        int ma = up ? up[gy] : PCWT_EC_OUTSIDE; /* above */
        int r_next = prow ? prow[gy / 2] : qmax;
        int mar_next = up && gy + 1 < ye ? up[gy + 1] : PCWT_EC_OUTSIDE;
#endif
        int32_t ab0_next = ab ? ab[2 * gy] : 0, ab1_next = ab ? ab[2 * gy + 1] : 0;
        uint32_t mw = 0;          /* pcwt_ec_put_mqd's word */
        pcwt_ec_held held = {{0}, 0}; /* pcwt_ec_put_element's element */
        for (uint32_t y = gy; y < ye; y++) {
            const int r = r_next, mar = mar_next;
            const int32_t ab0 = ab0_next, ab1 = ab1_next;
            if (y + 1 < ye) {
#ifdef __CUDA_ARCH__
                if (prow && (y + 1) % 2 == 0)
                    r_next = pcwt_ec_mqd_next(&pr);
                mar_next = up && y + 2 < ye ? pcwt_ec_mqd_next(&ur) : PCWT_EC_OUTSIDE;
#else
                r_next = prow ? prow[(y + 1) / 2] : qmax;
                mar_next = up && y + 2 < ye ? up[y + 2] : PCWT_EC_OUTSIDE;
#endif
                ab0_next = ab ? ab[2 * y + 2] : 0;
                ab1_next = ab ? ab[2 * y + 3] : 0;
            }
            int mq = -1;
            if (r >= 0) {
                int ec, zc;
                pcwt_ec_mqd_context_of(ml, mal, ma, mar, r, &ec, &zc);
                if (!pcwt_rc_decode(&rc, &m[(PCWT_EC_ZERO + zc) * ms]))
                    mq = r - pcwt_ec_decode_run(&rc, &m[(PCWT_EC_MQD + ec * 4) * ms], ms, 3, r);
            }
            pcwt_ec_put_mqd(mrow, y, gy, ye, mq, &mw);
            ml = mq;
            mal = ma;
            ma = mar;
            int32_t *const d0 = c0 + 2 * y, *const d1 = c1 + 2 * y;
            int32_t v[4] = {0, 0, 0, 0};
            if (mq < 0) {
                pcwt_ec_put_element(d0, d1, y + 1 == ye, v, &held);
                sl0 = sl1 = PCWT_EC_ZERO_SIGN;
                continue;
            }
            const int sa0 = pcwt_ec_sign_of(ab0), sa1 = pcwt_ec_sign_of(ab1);
            pcwt_bit_model *const mm = &m[(PCWT_EC_MAG + pcwt_ec_min(mq, 3) * 16) * ms];
            const uint32_t mf = 8 * ms; /* MAG models of found = 1 follow those of found = 0 */
            uint32_t found = 0; /* all ones once found */
            const int s0 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm, mq, 1, low, sl0, sa0, &found,
                                               &v[0]);
            const int s1 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm + (found & mf), mq, 1, low, s0,
                                               sa1, &found, &v[1]);
            const int s2 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm + (found & mf), mq, 1, low, sl1,
                                               s0, &found, &v[2]);
            const int s3 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm + (found & mf), mq,
                                               !exact || found, low, s2, s1, &found, &v[3]);
            pcwt_ec_put_element(d0, d1, y + 1 == ye, v, &held);
            sl0 = s1;
            sl1 = s3;
        }
        if (pcwt_ec_raw_pos(&raw, rs) > 8 * (uint64_t)rlen)
            return 0; /* stops a hostile group early */
    }
    /* Both streams must end exactly where the encoder ended them. */
    if (rc.code >= rc.range || pcwt_rc_dec_taken(&rc, a) < alen)
        return 0;
    const uint64_t pos = pcwt_ec_raw_pos(&raw, rs);
    if ((pos + 7) / 8 != rlen)
        return 0;
    const uint32_t pad = (uint32_t)((8 - pos % 8) % 8);
    if (pad && pcwt_ec_raw_get(&raw, pad) != 0)
        return 0;
    return 1;
}

#endif /* PCWT_EC_GROUP_CODER_H */
