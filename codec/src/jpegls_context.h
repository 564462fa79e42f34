/* jpegls_context.h - JPEG-LS lossless context modelling (T.87, A.2 - A.6): coding parameters,
 * gradient quantisation, MED prediction, bias correction and the A/B/C/N context statistics.
 *
 * The per-sample work is split in two so that it can be reused by a parallel encoder (the
 * GPU's, cuda/jpegls_gpu.h; T.87 A.2-A.6 for the order of the updates):
 *   - jls_context_id() and jls_med() depend only on the neighbours Ra, Rb, Rc, Rd, which in
 *     lossless mode are original samples: they can be computed for every sample independently;
 *   - jls_regular_code() needs the state of the sample's own context (one serial chain per
 *     context) and yields the mapped error and the Golomb parameter k;
 *   - the codeword itself is written with jls_golomb_put() (jpegls_golomb.h).
 * Only NEAR = 0 (lossless) is implemented. */
#ifndef PCWT_JPEGLS_CONTEXT_H
#define PCWT_JPEGLS_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "jpegls_bitwriter.h"
#include "jpegls_golomb.h"

#define JLS_MIN_BITS 2
#define JLS_MAX_BITS 16
#define JLS_REGULAR_CONTEXTS 365 /* |Q| = 0..364; Q = 0 only occurs in sample-interleaved scans */
#define JLS_DEFAULT_RESET 64
#define JLS_MIN_C (-128)
#define JLS_MAX_C 127

/* Coding parameters of a scan (A.2.1), with the default preset values of C.2.4.1.1. */
typedef struct jls_params {
    int32_t bits;   /* P, sample precision: 2..16 */
    int32_t maxval; /* MAXVAL = 2^P - 1 */
    int32_t range;  /* RANGE = MAXVAL + 1 (NEAR = 0) */
    uint32_t qbpp;  /* ceil(log2(RANGE)) = P */
    uint32_t limit; /* LIMIT = 2 * (bpp + max(8, bpp)), bpp = max(2, P) */
    int32_t t1, t2, t3;
    int32_t reset;  /* RESET */
    int32_t a_init; /* max(2, (RANGE + 32) / 64) */
    const int8_t *qlut; /* Qi of a gradient d, for d = -(RANGE - 1) .. RANGE - 1: qlut[d] */
} jls_params;

/* Bytes of the gradient quantisation table for P bits (2 * RANGE - 1). */
size_t jls_qlut_size(int32_t bits);

/* Fills p for P = bits (2..16) with the default thresholds; lut_storage holds jls_qlut_size(bits)
 * bytes and must outlive p (NULL: no table, p->qlut is NULL). */
void jls_params_init(jls_params *p, int32_t bits, int8_t *lut_storage);

/* A quantisation table kept by an encoder handle between frames: filling it costs 2^(P+1)
 * entries, far more than coding a small frame (a multi-frame file of 1x1 frames, say). */
typedef struct jls_qlut_cache {
    int8_t *storage; /* jls_qlut_size(bits) bytes, or NULL */
    int32_t bits;    /* the P it was filled for; 0 when empty */
} jls_qlut_cache;

/* Fills p as jls_params_init does, with the table from cache (refilled when P changes). Returns 0
 * when memory for the table is exhausted. */
int jls_params_init_cached(jls_params *p, int32_t bits, jls_qlut_cache *cache);
void jls_qlut_cache_free(jls_qlut_cache *cache);

/* Default thresholds T1, T2, T3 for NEAR = 0 (T.87, C.2.4.1.1.1). */
void jls_default_thresholds(int32_t maxval, int32_t *t1, int32_t *t2, int32_t *t3);

/* Statistics of one regular context (A.2.1 step 1.d): A, B, C, N. */
typedef struct jls_regular_ctx {
    int32_t a, b, c, n;
} jls_regular_ctx;

/* Statistics of the two run-interruption contexts (index = RItype): A, N, Nn. */
typedef struct jls_run_ctx {
    int32_t a, n, nn;
} jls_run_ctx;

typedef struct jls_contexts {
    jls_regular_ctx reg[JLS_REGULAR_CONTEXTS];
    jls_run_ctx run[2];
} jls_contexts;

/* Initial state (start of a scan or of a restart interval). */
void jls_contexts_reset(jls_contexts *cx, const jls_params *p);

/* Signed context number 81*Q1 + 9*Q2 + Q3 of the gradients D1 = Rd - Rb, D2 = Rb - Rc,
 * D3 = Rc - Ra. Zero selects run mode (in single-component and line-interleaved scans); otherwise
 * its sign is SIGN and its magnitude the context index (A.3.4: merging of Q and -Q). */
static inline int32_t jls_context_id(const jls_params *p, int32_t ra, int32_t rb, int32_t rc,
                                     int32_t rd)
{
    return ((int32_t)p->qlut[rd - rb] * 9 + (int32_t)p->qlut[rb - rc]) * 9 +
           (int32_t)p->qlut[rc - ra];
}

/* Median edge detector (A.4.1). */
static inline int32_t jls_med(int32_t ra, int32_t rb, int32_t rc)
{
    const int32_t mx = ra > rb ? ra : rb;
    const int32_t mn = ra > rb ? rb : ra;
    if (rc >= mx)
        return mn;
    if (rc <= mn)
        return mx;
    return ra + rb - rc;
}

/* Errval modulo RANGE into -RANGE/2 .. RANGE/2 - 1 (A.4.5; RANGE is a power of two here). */
static inline int32_t jls_mod_range(const jls_params *p, int32_t e)
{
    const int32_t half = p->range >> 1;
    return ((e + half) & (p->range - 1)) - half;
}

/* Floor of b / 2 for any sign (the standard's B >> 1 with arithmetic shift). */
static inline int32_t jls_half_floor(int32_t b) { return b >= 0 ? b >> 1 : -((1 - b) >> 1); }

/* Variable and bias update of a regular context (A.6.1, A.6.2) with Errval e. */
static inline void jls_regular_update(jls_regular_ctx *c, int32_t e, int32_t reset)
{
    c->a += e >= 0 ? e : -e;
    c->b += e;
    if (c->n == reset) {
        c->a >>= 1;
        c->b = jls_half_floor(c->b);
        c->n >>= 1;
    }
    c->n++;
    if (c->b + c->n <= 0) {
        c->b += c->n;
        if (c->b <= -c->n)
            c->b = 1 - c->n;
        if (c->c > JLS_MIN_C)
            c->c--;
    } else if (c->b > 0) {
        c->b -= c->n;
        if (c->b > 0)
            c->b = 0;
        if (c->c < JLS_MAX_C)
            c->c++;
    }
}

/* Result of coding one regular-mode sample: the codeword is LG(k, LIMIT) of mapped. */
typedef struct jls_regular_out {
    uint32_t mapped;
    uint32_t k;
} jls_regular_out;

/* Codes sample x in context qs (signed, see jls_context_id) with MED prediction px: bias
 * correction, residual, modulo reduction and mapping, then the context update. Because the
 * context's A never exceeds N * RANGE / 2, k <= qbpp - 1. */
static inline jls_regular_out jls_regular_code(const jls_params *p, jls_regular_ctx *reg,
                                                  int32_t qs, int32_t px, int32_t x)
{
    const int neg = qs < 0;
    jls_regular_ctx *c = &reg[neg ? -qs : qs];
    jls_regular_out out;
    out.k = jls_golomb_k(c->n, c->a);
    int32_t pred = neg ? px - c->c : px + c->c;
    if (pred < 0)
        pred = 0;
    else if (pred > p->maxval)
        pred = p->maxval;
    int32_t e = neg ? pred - x : x - pred;
    e = jls_mod_range(p, e);
    /* A.5.2: for k == 0 and 2B <= -N the mapping is inverted, i.e. -e - 1 is mapped. */
    const int32_t e_mapped = (out.k == 0 && 2 * c->b + c->n - 1 < 0) ? -e - 1 : e;
    out.mapped = jls_map_error(e_mapped);
    jls_regular_update(c, e, p->reset);
    return out;
}

/* jls_regular_code followed by its codeword. */
static inline void jls_regular_sample(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                                      int32_t qs, int32_t px, int32_t x)
{
    const jls_regular_out code = jls_regular_code(p, cx->reg, qs, px, x);
    jls_golomb_put(bw, code.mapped, code.k, p->limit, p->qbpp);
}

#endif /* PCWT_JPEGLS_CONTEXT_H */
