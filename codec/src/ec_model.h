/* ec_model.h - the bit models and contexts of the entropy profile (profile 1, docs/FORMAT.md
 * Sec. 5): model indices, what a group needs of its band, the MQD and sign contexts and the
 * decision on modelled low bits. Shared by the group encoder (ec_group_encode.h), the group
 * records (ec_record.h) and the group decoder (ec_group_coder.h), on the CPU and the GPU. */
#ifndef PCWT_EC_MODEL_H
#define PCWT_EC_MODEL_H

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
    /* MANT2[min(q,7)-2] (planes that model the second mantissa bit) take MAG[0][1][1..6], unused
     * for the same reason. */
    PCWT_EC_MANT2 = PCWT_EC_MAG + 8 + 1,
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
    int low;                /* the plane's modelled bits, PCWT_EC_LOW_BITS | PCWT_EC_SECOND_BIT */
} pcwt_ec_band;

/* Bits of pcwt_ec_band.low: the plane models the two low bits of magnitudes (plane option bit 0),
 * the second mantissa bit (option bit 4; Sec. 5.3). */
#define PCWT_EC_LOW_BITS 1
#define PCWT_EC_SECOND_BIT 2

/* A plane's pcwt_ec_band.low from its header's option bits 0 (low bits) and 4 (second bit). */
static inline PCWT_HD int pcwt_ec_modelled_bits(int low_bits, int second_bit)
{
    return (low_bits ? PCWT_EC_LOW_BITS : 0) | (second_bit ? PCWT_EC_SECOND_BIT : 0);
}

/* Whether bit q-2 of a magnitude of level q >= 1 is range-coded with MANT2 (low: the band's
 * pcwt_ec_band.low): with the option, where it would otherwise be raw (q >= 2; with modelled low
 * bits q >= 4, as bits 1 and 0 are the low-bit models'). */
static inline PCWT_HD int pcwt_ec_second_bit(int low, int q)
{
    return (low & PCWT_EC_SECOND_BIT) && q >= ((low & PCWT_EC_LOW_BITS) ? 4 : 2);
}

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
#if defined(__CUDA_ARCH__) && defined(PCWT_RC_GPU_PAIRED_MODELS)
static_assert(PCWT_EC_ALL == PCWT_RC_GPU_PAIRED_ALL, "the GPU's paired layout (rangecoder.h) holds them");
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


#endif /* PCWT_EC_MODEL_H */
