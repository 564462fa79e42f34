/* j2k_t1_rules.h - JPEG 2000 Part 1 tier-1 decoding of one code-block (ITU-T T.800 Annexes C and
 * D), written once for the CPU (j2k_t1.c) and the GPU (cuda/j2k_t1_gpu.cu, a thread per code-block),
 * so that both decode every code-block into the same coefficients.
 *
 * Working storage: the code-block's own rectangle of the batch's coefficient buffer holds each
 * magnitude decoded so far, kept (as OpenJPEG keeps it) at twice its value with a half of the next
 * plane below added once the coefficient is significant; a 16-bit state word per coefficient (the
 * caller's scratch, pcwt_j2k_state_words of them) holds its significance, sign, visited and
 * refined marks and, pushed there when a neighbour becomes significant, its eight neighbours'
 * significance and four neighbours' signs, so that a context is one read of a table
 * (pcwt_j2k_t1_luts, built once: zero coding by orientation, sign coding, and the MQ states' next
 * states, so that a decision is a few selects). The state words lie
 * stripe by stripe, the four rows of a stripe column side by side (the passes' scan order; a pass
 * holds the column at hand and the two beside it in registers, pcwt_j2k_cols). The
 * last step turns each magnitude into sign * (magnitude / 2), truncated: OpenJPEG's reconstruction
 * of a reversible path, its midpoint where passes are missing.
 *
 * The MQ decoder reads 0xFF past a segment's end (C.3.4, what OpenJPEG's appended 0xFF 0xFF does),
 * so no read leaves the segment; every loop is bounded by the code-block's size and passes. It
 * keeps up to 16 bits of the codeword below the compared half of C, so that renormalisation is one
 * shift by the leading zeros of A: adding a byte earlier at its place below gives the same C as
 * the standard's byte by byte (shifts and additions commute, modulo 2^32 too). */
#ifndef PCWT_J2K_T1_RULES_H
#define PCWT_J2K_T1_RULES_H

#include "hostdev.h"
#include "j2k_batch.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* State word bits: the neighbours' significance (W, E, N, S, NW, NE, SW, SE) and signs (W, E, N,
 * S), then the coefficient's own marks. */
#define PCWT_J2K_NB_SIG 0xFFu
#define PCWT_J2K_F_SIG 0x1000u
#define PCWT_J2K_F_NEG 0x2000u
#define PCWT_J2K_F_PI 0x4000u  /* visited by this plane's significance pass */
#define PCWT_J2K_F_MU 0x8000u  /* refined before */
/* Bit-planes a code-block may have: the doubled magnitude must fit 32 bits (OpenJPEG's limit). */
#define PCWT_J2K_MAX_PLANES 30u

/* Contexts (D.3): zero coding 0-8, sign coding 9-13 (the label of Table D.3 is the index),
 * magnitude refinement 14-16, run-length 17, uniform 18. */
enum { PCWT_J2K_CX_SC = 9, PCWT_J2K_CX_MR = 14, PCWT_J2K_CX_RL = 17, PCWT_J2K_CX_UNI = 18,
       PCWT_J2K_CONTEXTS = 19 };

/* Table C.2, one word per state: Qe << 16 | NMPS << 10 | NLPS << 4 | SWITCH. */
#define PCWT_J2K_MQ(qe, nmps, nlps, sw) \
    (((uint32_t)(qe) << 16) | ((uint32_t)(nmps) << 10) | ((uint32_t)(nlps) << 4) | (uint32_t)(sw))
#define PCWT_J2K_MQ_STATES 47
#define PCWT_J2K_MQ_TABLE_INIT                                                                     \
    {PCWT_J2K_MQ(0x5601, 1, 1, 1),   PCWT_J2K_MQ(0x3401, 2, 6, 0),   PCWT_J2K_MQ(0x1801, 3, 9, 0),  \
     PCWT_J2K_MQ(0x0AC1, 4, 12, 0),  PCWT_J2K_MQ(0x0521, 5, 29, 0),  PCWT_J2K_MQ(0x0221, 38, 33, 0), \
     PCWT_J2K_MQ(0x5601, 7, 6, 1),   PCWT_J2K_MQ(0x5401, 8, 14, 0),  PCWT_J2K_MQ(0x4801, 9, 14, 0),  \
     PCWT_J2K_MQ(0x3801, 10, 14, 0), PCWT_J2K_MQ(0x3001, 11, 17, 0), PCWT_J2K_MQ(0x2401, 12, 18, 0), \
     PCWT_J2K_MQ(0x1C01, 13, 20, 0), PCWT_J2K_MQ(0x1601, 29, 21, 0), PCWT_J2K_MQ(0x5601, 15, 14, 1), \
     PCWT_J2K_MQ(0x5401, 16, 14, 0), PCWT_J2K_MQ(0x5101, 17, 15, 0), PCWT_J2K_MQ(0x4801, 18, 16, 0), \
     PCWT_J2K_MQ(0x3801, 19, 17, 0), PCWT_J2K_MQ(0x3401, 20, 18, 0), PCWT_J2K_MQ(0x3001, 21, 19, 0), \
     PCWT_J2K_MQ(0x2801, 22, 19, 0), PCWT_J2K_MQ(0x2401, 23, 20, 0), PCWT_J2K_MQ(0x2201, 24, 21, 0), \
     PCWT_J2K_MQ(0x1C01, 25, 22, 0), PCWT_J2K_MQ(0x1801, 26, 23, 0), PCWT_J2K_MQ(0x1601, 27, 24, 0), \
     PCWT_J2K_MQ(0x1401, 28, 25, 0), PCWT_J2K_MQ(0x1201, 29, 26, 0), PCWT_J2K_MQ(0x1101, 30, 27, 0), \
     PCWT_J2K_MQ(0x0AC1, 31, 28, 0), PCWT_J2K_MQ(0x09C1, 32, 29, 0), PCWT_J2K_MQ(0x08A1, 33, 30, 0), \
     PCWT_J2K_MQ(0x0521, 34, 31, 0), PCWT_J2K_MQ(0x0441, 35, 32, 0), PCWT_J2K_MQ(0x02A1, 36, 33, 0), \
     PCWT_J2K_MQ(0x0221, 37, 34, 0), PCWT_J2K_MQ(0x0141, 38, 35, 0), PCWT_J2K_MQ(0x0111, 39, 36, 0), \
     PCWT_J2K_MQ(0x0085, 40, 37, 0), PCWT_J2K_MQ(0x0049, 41, 38, 0), PCWT_J2K_MQ(0x0025, 42, 39, 0), \
     PCWT_J2K_MQ(0x0015, 43, 40, 0), PCWT_J2K_MQ(0x0009, 44, 41, 0), PCWT_J2K_MQ(0x0005, 45, 42, 0), \
     PCWT_J2K_MQ(0x0001, 45, 43, 0), PCWT_J2K_MQ(0x5601, 46, 46, 0)}

/* What pcwt_j2k_t1_check and pcwt_j2k_t1_block report. */
enum {
    PCWT_J2K_T1_OK = 0,
    PCWT_J2K_T1_BAD_RECT,     /* size out of 1..1024 / 4096, or the rectangle leaves the buffer */
    PCWT_J2K_T1_BAD_SEGS,     /* segments outside the batch's lists or data, passes not adding up */
    PCWT_J2K_T1_BAD_PLANES,   /* more missing bit-planes than Mb, or more passes than the planes */
    PCWT_J2K_T1_BAD_ORIENT,   /* orientation not LL..HH */
    PCWT_J2K_T1_HT,           /* the HTJ2K block coder (Part 15) */
    PCWT_J2K_T1_MANY_PLANES   /* more than PCWT_J2K_MAX_PLANES magnitude bit-planes */
};

/* The MQ decoder (C.3) and the raw reader of bypassed passes (D.6) over one segment. */
typedef struct pcwt_j2k_mq {
    const uint8_t *d;
    uint32_t len, bp; /* bp <= len + 1: past the end every byte reads 0xFF */
    uint32_t a, c, ct;
    uint32_t b, nb;   /* the byte at bp (pcwt_j2k_mq_fill; 0 in a raw segment), the byte at bp + 1 */
} pcwt_j2k_mq;

static inline PCWT_HD uint32_t pcwt_j2k_mq_byte(const pcwt_j2k_mq *m, uint32_t i)
{
    return i < m->len ? m->d[i] : 0xFFu;
}

/* BYTEIN (C.3.4): a byte after 0xFF above 0x8F is a marker, and ones are fed instead. */
static inline PCWT_HD void pcwt_j2k_mq_bytein(pcwt_j2k_mq *m)
{
    if (pcwt_j2k_mq_byte(m, m->bp) == 0xFFu) {
        const uint32_t b1 = pcwt_j2k_mq_byte(m, m->bp + 1);
        if (b1 > 0x8Fu) {
            m->c += 0xFF00u;
            m->ct = 8;
        } else {
            m->bp++;
            m->c += b1 << 9;
            m->ct = 7;
        }
    } else {
        m->bp++;
        m->c += pcwt_j2k_mq_byte(m, m->bp) << 8;
        m->ct = 8;
    }
}

/* INITDEC (C.3.5). */
static inline PCWT_HD void pcwt_j2k_mq_init(pcwt_j2k_mq *m, const uint8_t *d, uint32_t len)
{
    m->d = d;
    m->len = len;
    m->bp = 0;
    m->c = pcwt_j2k_mq_byte(m, 0) << 16;
    pcwt_j2k_mq_bytein(m);
    m->c <<= 7;
    m->ct -= 7;
    m->a = 0x8000u;
    m->b = pcwt_j2k_mq_byte(m, m->bp);
    m->nb = pcwt_j2k_mq_byte(m, m->bp + 1);
}

/* Count of leading zeros of x != 0. */
static inline PCWT_HD uint32_t pcwt_j2k_clz(uint32_t x)
{
    return 31u - (uint32_t)PCWT_LOG2(x);
}

/* BYTEIN ahead of need: while at most 8 codeword bits wait below C's upper half (ct), the next
 * byte goes just below them (after 0xFF its 7 bits, its top bit on the lowest waiting bit). The
 * byte after it is read here for the next fill, so that no fill waits for its load. */
static inline PCWT_HD void pcwt_j2k_mq_fill(pcwt_j2k_mq *m)
{
    while (m->ct <= 8u) {
        if (m->b == 0xFFu && m->nb > 0x8Fu) { /* a marker: ones, and the position stays */
            m->c += 0xFFu << (8u - m->ct);
            m->ct += 8;
            continue;
        }
        const uint32_t after_ff = m->b == 0xFFu; /* 7 bits, one place lower */
        m->bp++;
        m->b = m->nb;
        m->nb = pcwt_j2k_mq_byte(m, m->bp + 1);
        m->c += m->b << (8u + after_ff - m->ct);
        m->ct += 8u - after_ff;
    }
}

/* RENORMD (C.3.3) as one shift of A and C by A's leading zeros (1..15 below 0x8000). */
static inline PCWT_HD void pcwt_j2k_mq_renorm(pcwt_j2k_mq *m)
{
    uint32_t n = pcwt_j2k_clz(m->a) - 16u;
    if (n > m->ct) {
        pcwt_j2k_mq_fill(m);
        if (n > m->ct) { /* more than the 9..16 waiting bits */
            m->a <<= m->ct;
            m->c <<= m->ct;
            n -= m->ct;
            m->ct = 0;
            pcwt_j2k_mq_fill(m);
        }
    }
    m->a <<= n;
    m->c <<= n;
    m->ct -= n;
}

/* The MQ decoder is the inner loop of every pass: inlined at each call, as OpenJPEG's macros are. */
#if defined(__CUDACC__)
#define PCWT_J2K_HOT __forceinline__
#elif defined(__GNUC__)
#define PCWT_J2K_HOT inline __attribute__((always_inline))
#else
#define PCWT_J2K_HOT inline
#endif

/* DECODE (C.3.2) with context state *cx (state index << 1 | MPS); mqt: pcwt_j2k_t1_luts.mq. The
 * MPS without renormalisation returns at once; otherwise the symbol is an LPS when the interval
 * taken (LPS below C's half, MPS above) and the exchange test disagree. */
static PCWT_J2K_HOT PCWT_HD uint32_t pcwt_j2k_mq_decode(pcwt_j2k_mq *m, uint8_t *cx, const uint32_t *mqt)
{
    const uint32_t st = *cx, e = mqt[st], qe = e >> 16;
    m->a -= qe;
    const uint32_t lower = (m->c >> 16) < qe;
    if (!lower) {
        m->c -= qe << 16;
        if (m->a & 0x8000u)
            return st & 1u;
    }
    const uint32_t lps = lower ^ (m->a < qe);
    if (lower)
        m->a = qe;
    *cx = (uint8_t)(lps ? e : e >> 8);
    pcwt_j2k_mq_renorm(m);
    return (st & 1u) ^ lps;
}

static inline PCWT_HD void pcwt_j2k_raw_init(pcwt_j2k_mq *m, const uint8_t *d, uint32_t len)
{
    m->d = d;
    m->len = len;
    m->bp = 0;
    m->c = 0;
    m->ct = 0;
    m->a = 0;
    m->b = 0;
    m->nb = pcwt_j2k_mq_byte(m, 1);
}

/* One raw bit (D.6): after 0xFF a byte carries 7 bits; a byte above 0x8F there ends the data. */
static inline PCWT_HD uint32_t pcwt_j2k_raw_bit(pcwt_j2k_mq *m)
{
    if (m->ct == 0) {
        if (m->c == 0xFFu) {
            if (pcwt_j2k_mq_byte(m, m->bp) > 0x8Fu) {
                m->ct = 8;
            } else {
                m->c = pcwt_j2k_mq_byte(m, m->bp++);
                m->ct = 7;
            }
        } else {
            m->c = pcwt_j2k_mq_byte(m, m->bp++);
            m->ct = 8;
        }
        m->nb = pcwt_j2k_mq_byte(m, m->bp + 1); /* as pcwt_j2k_mq_fill keeps it */
    }
    m->ct--;
    return (m->c >> m->ct) & 1u;
}

/* The initial context states (D.7): all 0 except uniform 46, run-length 3, zero coding 0 at 4. */
static inline PCWT_HD void pcwt_j2k_reset_contexts(uint8_t *cx)
{
    for (int i = 0; i < PCWT_J2K_CONTEXTS; ++i)
        cx[i] = 0;
    cx[PCWT_J2K_CX_UNI] = 46u << 1;
    cx[PCWT_J2K_CX_RL] = 3u << 1;
    cx[0] = 4u << 1;
}

/* Four state words at once, at an address that is a multiple of 4 words (a code-block's state
 * words start at one; on the GPU in device memory): one 64-bit access. On the GPU in PTX, which
 * the compiler neither splits (as it does memcpy from a 16-bit pointer) nor moves across the
 * 16-bit accesses to the same words. */
static inline PCWT_HD uint64_t pcwt_j2k_load4(const uint16_t *p)
{
    uint64_t w;
#ifdef __CUDA_ARCH__
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
#else
    memcpy(&w, p, sizeof w);
#endif
    return w;
}

static inline PCWT_HD void pcwt_j2k_store4(uint16_t *p, uint64_t w)
{
#ifdef __CUDA_ARCH__
    asm volatile("st.global.u64 [%0], %1;" : : "l"(p), "l"(w) : "memory");
#else
    memcpy(p, &w, sizeof w);
#endif
}

/* State words a code-block of w x h needs: its stripes of four rows, the last one padded. */
static inline PCWT_HD uint32_t pcwt_j2k_state_words(uint32_t w, uint32_t h)
{
    return (h + 3) / 4 * 4 * w;
}

/* One code-block being decoded. */
typedef struct pcwt_j2k_t1_state {
    uint32_t *c;                 /* the magnitudes, row pitch stride */
    uint16_t *f;                 /* the state words, stripe-major (pcwt_j2k_sw) */
    uint32_t stride, w, h;
    uint32_t vsc;                /* vertically causal: a stripe's last row ignores the next stripe */
    const uint32_t *mqt;         /* pcwt_j2k_t1_luts.mq */
    const uint8_t *zc, *sc;      /* pcwt_j2k_t1_luts.zc of the orientation, .sc */
    pcwt_j2k_mq mq;
    uint8_t *cx;                 /* the PCWT_J2K_CONTEXTS context states */
    uint32_t far;                /* 1: refinements as atomic XORs in L2 (the GPU) */
} pcwt_j2k_t1_state;

/* A refinement of magnitude *c, which holds bit bp set (the half of the plane above) and nothing
 * below: a 1 adds the half below, a 0 takes bp's bit away and adds the half below, both one XOR
 * with ((bit ^ 1) << bp) | half. On the GPU with far an atomic XOR in L2, which the thread does not
 * wait for and which takes no L1 line (pcwt_j2k_magnitude then reads past L1). */
static inline PCWT_HD void pcwt_j2k_refine(uint32_t *c, uint32_t v, uint32_t far)
{
#ifdef __CUDA_ARCH__
    if (far) {
        asm volatile("red.global.xor.b32 [%0], %1;" : : "l"(c), "r"(v) : "memory");
        return;
    }
#else
    (void)far;
#endif
    *c ^= v;
}

/* A magnitude at the end (from L2 on the GPU with far, where the refinements went). */
static inline PCWT_HD uint32_t pcwt_j2k_magnitude(const uint32_t *c, uint32_t far)
{
#ifdef __CUDA_ARCH__
    if (far) {
        uint32_t v;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(c) : "memory");
        return v;
    }
#else
    (void)far;
#endif
    return *c;
}

/* DECODE in context i of the code-block. */
static PCWT_J2K_HOT PCWT_HD uint32_t pcwt_j2k_decode_cx(pcwt_j2k_t1_state *s, uint32_t i)
{
    return pcwt_j2k_mq_decode(&s->mq, &s->cx[i], s->mqt);
}

/* The state word of (x, y): stripe y / 4, column x, row y % 4. */
static inline PCWT_HD uint16_t *pcwt_j2k_sw(const pcwt_j2k_t1_state *s, uint32_t x, uint32_t y)
{
    return s->f + ((size_t)(y >> 2) * s->w + x) * 4 + (y & 3u);
}

/* Zero coding context (Table D.1) from a state word: LL and LH (at (0, lh)) with the horizontal
 * count first, HL (at (lw, 0), horizontally high-pass) with the two counts swapped, HH on the
 * diagonal count. */
static inline PCWT_HD uint32_t pcwt_j2k_zc_ctx(uint32_t n, uint32_t orient)
{
    uint32_t h = (n & 1u) + (n >> 1 & 1u), v = (n >> 2 & 1u) + (n >> 3 & 1u);
    const uint32_t d = (n >> 4 & 1u) + (n >> 5 & 1u) + (n >> 6 & 1u) + (n >> 7 & 1u);
    if (orient == PCWT_J2K_HH) {
        const uint32_t hv = h + v;
        if (d >= 3)
            return 8;
        if (d == 2)
            return hv >= 1 ? 7 : 6;
        if (d == 1)
            return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
        return hv >= 2 ? 2 : hv;
    }
    if (orient == PCWT_J2K_HL) {
        const uint32_t t = h;
        h = v;
        v = t;
    }
    if (h == 2)
        return 8;
    if (h == 1)
        return v ? 7 : d ? 6 : 5;
    if (v)
        return 2 + v;
    return d >= 2 ? 2 : d;
}

/* Sign coding context and XOR bit (Table D.3) from a state word: the context in bits 0-4, the XOR
 * bit in bit 5. */
static inline PCWT_HD uint32_t pcwt_j2k_sc(uint32_t n)
{
    int hc = (int)(n & 1u) * (1 - 2 * (int)(n >> 8 & 1u)) + (int)(n >> 1 & 1u) * (1 - 2 * (int)(n >> 9 & 1u));
    int vc = (int)(n >> 2 & 1u) * (1 - 2 * (int)(n >> 10 & 1u)) + (int)(n >> 3 & 1u) * (1 - 2 * (int)(n >> 11 & 1u));
    uint32_t x = 0;
    hc = hc > 1 ? 1 : hc < -1 ? -1 : hc;
    vc = vc > 1 ? 1 : vc < -1 ? -1 : vc;
    if (hc < 0 || (hc == 0 && vc < 0)) {
        hc = -hc;
        vc = -vc;
        x = 1;
    }
    return (uint32_t)(hc ? 12 + vc : 9 + vc) | x << 5;
}

/* The tables the passes read (shared memory on the GPU): the MQ states (by context state: Qe
 * << 16 | the context state after an MPS << 8 | after an LPS), the zero coding context by
 * orientation and the eight neighbours' significance (a state word's low byte), the sign coding
 * context and XOR bit by the four direct neighbours' significance and (bits 4-7) signs. */
typedef struct pcwt_j2k_t1_luts {
    uint32_t mq[2 * PCWT_J2K_MQ_STATES];
    uint8_t zc[4][256];
    uint8_t sc[256];
} pcwt_j2k_t1_luts;

/* Entry st of pcwt_j2k_t1_luts.mq from Table C.2 (PCWT_J2K_MQ_TABLE_INIT). */
static inline PCWT_HD uint32_t pcwt_j2k_mq_lut(const uint32_t *table, uint32_t st)
{
    const uint32_t row = table[st >> 1], mps = st & 1u;
    const uint32_t nmps = (row >> 10) & 63u, nlps = (row >> 4) & 63u, sw = row & 1u;
    return (row >> 16) << 16 | (nmps << 1 | mps) << 8 | (nlps << 1 | (mps ^ sw));
}

/* Entry i of pcwt_j2k_t1_luts.sc. */
static inline PCWT_HD uint8_t pcwt_j2k_sc_lut(uint32_t i)
{
    return (uint8_t)pcwt_j2k_sc((i & 0xFu) | (i & 0xF0u) << 4);
}

/* The sign coding table's index of a state word. */
static inline PCWT_HD uint32_t pcwt_j2k_sc_index(uint32_t n)
{
    return (n & 0xFu) | (n >> 4 & 0xF0u);
}

/* A stripe column's four state words as one 64-bit value: row k's word at bits 16k. */
#define PCWT_J2K_ROW(v, k) ((uint64_t)(v) << (16u * (k)))

/* The stripe columns a pass holds in registers: the current one (w), the one before it (prev,
 * written back once the current one is done, since the current one's pushes still reach it) and
 * the bits the current one pushes into the next (pend, ORed in when the next is taken; the next
 * is loaded a column ahead, and nothing else writes it meanwhile). The stripes above and below are
 * pushed to in memory: the one above is done, the one below not loaded yet. */
typedef struct pcwt_j2k_cols {
    uint64_t w, prev, pend;
    uint32_t dirty;      /* w differs from memory */
    uint32_t prev_dirty; /* prev differs from memory */
} pcwt_j2k_cols;

/* ORs centre into the state word at p, left and right into the words of the columns beside it
 * where the code-block has them (l, r), all three read before any is written, so that their loads
 * wait once. */
static PCWT_J2K_HOT PCWT_HD void pcwt_j2k_or3(uint16_t *p, int l, int r, uint32_t centre, uint32_t left,
                                              uint32_t right)
{
    const uint32_t pl = l ? p[-4] : 0u, pc = p[0], pr = r ? p[4] : 0u;
    p[0] = (uint16_t)(pc | centre);
    if (l)
        p[-4] = (uint16_t)(pl | left);
    if (r)
        p[4] = (uint16_t)(pr | right);
}

/* (x, y0 + k) became significant (neg: its sign): its own marks, and its eight neighbours' state
 * words (none below the code-block's last row). A first stripe row does not reach the stripe above
 * under VSC, whose last row then ignores it. The stripes above and below in memory
 * (pcwt_j2k_or3). */
static PCWT_J2K_HOT PCWT_HD void pcwt_j2k_push(const pcwt_j2k_t1_state *s, pcwt_j2k_cols *c, uint16_t *col,
                                               uint32_t x, uint32_t y0, uint32_t k, uint32_t neg, uint32_t marks)
{
    const uint32_t y = y0 + k;
    const int l = x > 0, r = x + 1 < s->w;
    uint64_t own = PCWT_J2K_ROW(PCWT_J2K_F_SIG | neg << 13 | marks, k);
    uint64_t lm = PCWT_J2K_ROW(1u << 1 | neg << 9, k); /* I am its east */
    uint64_t rm = PCWT_J2K_ROW(1u | neg << 8, k);      /* its west */
    if (k > 0) {
        own |= PCWT_J2K_ROW(1u << 3 | neg << 11, k - 1); /* its south */
        lm |= PCWT_J2K_ROW(1u << 7, k - 1);              /* its south-east */
        rm |= PCWT_J2K_ROW(1u << 6, k - 1);              /* its south-west */
    } else if (y > 0 && !s->vsc) { /* row 3 of the stripe above: its south, south-east, south-west */
        pcwt_j2k_or3(col - 4 * s->w + 3, l, r, 1u << 3 | neg << 11, 1u << 7, 1u << 6);
    }
    if (y + 1 < s->h) {
        if (k < 3) {
            own |= PCWT_J2K_ROW(1u << 2 | neg << 10, k + 1); /* its north */
            lm |= PCWT_J2K_ROW(1u << 5, k + 1);              /* its north-east */
            rm |= PCWT_J2K_ROW(1u << 4, k + 1);              /* its north-west */
        } else { /* row 0 of the stripe below: its north, north-east, north-west */
            pcwt_j2k_or3(col + 4 * s->w, l, r, 1u << 2 | neg << 10, 1u << 5, 1u << 4);
        }
    }
    c->w |= own;
    c->dirty = 1;
    if (l) {
        c->prev |= lm;
        c->prev_dirty = 1;
    }
    c->pend |= rm; /* dropped after a stripe's last column */
}

/* (x, y0 + k), state word n, becomes significant at plane bp: its sign, then magnitude
 * 1.5 * 2^bp, its marks and its neighbours'. */
static PCWT_J2K_HOT PCWT_HD void pcwt_j2k_set_sig(pcwt_j2k_t1_state *s, pcwt_j2k_cols *c, uint16_t *col,
                                                  uint32_t x, uint32_t y0, uint32_t k, uint32_t n, uint32_t bp,
                                                  int raw, uint32_t marks)
{
    uint32_t neg;
    if (raw) {
        neg = pcwt_j2k_raw_bit(&s->mq);
    } else {
        const uint32_t sc = s->sc[pcwt_j2k_sc_index(n)];
        neg = pcwt_j2k_decode_cx(s, sc & 31u) ^ (sc >> 5);
    }
    s->c[(size_t)(y0 + k) * s->stride + x] = 3u << (bp - 1);
    pcwt_j2k_push(s, c, col, x, y0, k, neg, marks);
}

/* Whether a stripe column (rows past the code-block's end are zero) has a candidate of the
 * significance pass: insignificant, not visited, a significant neighbour; the four words at once. */
static PCWT_J2K_HOT PCWT_HD int pcwt_j2k_sig_candidates(uint64_t w)
{
    const uint64_t lanes = 0x0001000100010001ull;
    const uint64_t nb = ((w & (PCWT_J2K_NB_SIG * lanes)) + 0xFFu * lanes) & (0x100u * lanes); /* bit 8: a neighbour */
    const uint64_t done = ((w >> 12) | (w >> 14)) & lanes;                                    /* bit 0: SIG or PI */
    return (nb & ~(done << 8)) != 0;
}

/* Significance propagation (D.3.1) of one stripe column at plane bp (OpenJPEG's bpno_plus_one).
 * A column without a candidate is skipped at once: a candidate can only appear in it when one of
 * its own becomes significant. */
static PCWT_J2K_HOT PCWT_HD void pcwt_j2k_sig_col(pcwt_j2k_t1_state *s, pcwt_j2k_cols *c, uint16_t *col, uint32_t x,
                                                  uint32_t y0, uint32_t rows, uint32_t bp, int raw)
{
    if (!pcwt_j2k_sig_candidates(c->w))
        return;
    for (uint32_t k = 0; k < rows; ++k) {
        const uint32_t n = (uint32_t)(c->w >> 16u * k) & 0xFFFFu;
        if ((n & (PCWT_J2K_F_SIG | PCWT_J2K_F_PI)) || !(n & PCWT_J2K_NB_SIG))
            continue;
        const uint32_t bit = raw ? pcwt_j2k_raw_bit(&s->mq) : pcwt_j2k_decode_cx(s, s->zc[n & PCWT_J2K_NB_SIG]);
        if (bit) {
            pcwt_j2k_set_sig(s, c, col, x, y0, k, n, bp, raw, PCWT_J2K_F_PI);
        } else {
            c->w |= PCWT_J2K_ROW(PCWT_J2K_F_PI, k);
            c->dirty = 1;
        }
    }
}

/* Cleanup (D.3.4) of one stripe column at plane bp, with the run-length mode on a full column;
 * clears the visited marks for the next plane. */
static PCWT_J2K_HOT PCWT_HD void pcwt_j2k_cleanup_col(pcwt_j2k_t1_state *s, pcwt_j2k_cols *c, uint16_t *col,
                                                      uint32_t x, uint32_t y0, uint32_t rows, uint32_t bp)
{
    const uint64_t w = c->w;
    const uint32_t any = (uint32_t)(w | w >> 16 | w >> 32 | w >> 48) & 0xFFFFu;
    if (((w >> 12) & 0x0001000100010001ull) == 0x0001000100010001ull && !(any & PCWT_J2K_F_PI))
        return; /* all four significant before: nothing to code or clear */
    uint32_t k = 0;
    if (rows == 4 && !(any & (PCWT_J2K_F_SIG | PCWT_J2K_F_PI | PCWT_J2K_NB_SIG))) {
        if (!pcwt_j2k_decode_cx(s, PCWT_J2K_CX_RL))
            return; /* the four stay insignificant */
        uint32_t r = pcwt_j2k_decode_cx(s, PCWT_J2K_CX_UNI) << 1;
        r |= pcwt_j2k_decode_cx(s, PCWT_J2K_CX_UNI);
        pcwt_j2k_set_sig(s, c, col, x, y0, r, (uint32_t)(w >> 16u * r) & 0xFFFFu, bp, 0, 0);
        k = r + 1;
    }
    for (; k < rows; ++k) {
        const uint32_t n = (uint32_t)(c->w >> 16u * k) & 0xFFFFu;
        if (n & PCWT_J2K_F_PI) {
            c->w &= ~PCWT_J2K_ROW(PCWT_J2K_F_PI, k);
            c->dirty = 1;
            continue;
        }
        if (n & PCWT_J2K_F_SIG)
            continue;
        if (pcwt_j2k_decode_cx(s, s->zc[n & PCWT_J2K_NB_SIG]))
            pcwt_j2k_set_sig(s, c, col, x, y0, k, n, bp, 0, 0);
    }
}

/* The significance propagation (cleanup 0) or cleanup (cleanup 1) pass at plane bp: the stripes
 * top to bottom, each column by column with its state words in registers (pcwt_j2k_cols). */
static PCWT_J2K_HOT PCWT_HD void pcwt_j2k_scan_pass(pcwt_j2k_t1_state *s, uint32_t bp, int raw, int cleanup)
{
    for (uint32_t y0 = 0; y0 < s->h; y0 += 4) {
        const uint32_t rows = s->h - y0 < 4 ? s->h - y0 : 4;
        uint16_t *col = pcwt_j2k_sw(s, 0, y0);
        uint64_t next = pcwt_j2k_load4(col);
        pcwt_j2k_cols c;
        c.prev = 0;
        c.pend = 0;
        c.prev_dirty = 0;
        for (uint32_t x = 0; x < s->w; ++x, col += 4) {
            c.w = next | c.pend;
            c.dirty = c.pend != 0;
            c.pend = 0;
            if (x + 1 < s->w)
                next = pcwt_j2k_load4(col + 4);
            if (cleanup)
                pcwt_j2k_cleanup_col(s, &c, col, x, y0, rows, bp);
            else
                pcwt_j2k_sig_col(s, &c, col, x, y0, rows, bp, raw);
            if (c.prev_dirty)
                pcwt_j2k_store4(col - 4, c.prev);
            c.prev = c.w;
            c.prev_dirty = c.dirty;
        }
        if (c.prev_dirty)
            pcwt_j2k_store4(col - 4, c.prev);
    }
}

/* Significance propagation pass (D.3.1) at plane bp. */
static inline PCWT_HD void pcwt_j2k_sig_pass(pcwt_j2k_t1_state *sp, uint32_t bp, int raw)
{
    pcwt_j2k_t1_state st = *sp; /* a local copy: the MQ registers and contexts stay in registers,
                                   not reloaded after every store through the state pointers */
    pcwt_j2k_scan_pass(&st, bp, raw, 0);
    *sp = st;
}

/* Magnitude refinement pass (D.3.3): the significant coefficients not coded in this plane. No
 * state word but the refined marks changes in it. */
static inline PCWT_HD void pcwt_j2k_ref_pass(pcwt_j2k_t1_state *sp, uint32_t bp, int raw)
{
    pcwt_j2k_t1_state st = *sp; /* a local copy, as above */
    pcwt_j2k_t1_state *s = &st;
    const uint32_t half = (1u << bp) >> 1;
    for (uint32_t y0 = 0; y0 < s->h; y0 += 4) {
        uint16_t *col = pcwt_j2k_sw(s, 0, y0);
        uint64_t next = pcwt_j2k_load4(col); /* rows past the end are zero */
        for (uint32_t x = 0; x < s->w; ++x, col += 4) {
            const uint64_t w = next;
            if (x + 1 < s->w)
                next = pcwt_j2k_load4(col + 4);
            const uint64_t t = (w >> 12) & ~(w >> 14) & 0x0001000100010001ull; /* SIG, not PI */
            if (!t)
                continue;
            /* bit k: row k is refined */
            uint32_t todo = (uint32_t)((t | t >> 15 | t >> 30 | t >> 45) & 0xFu);
            for (uint32_t k = 0; todo; ++k, todo >>= 1) {
                if (!(todo & 1u))
                    continue;
                uint32_t bit;
                if (raw) {
                    bit = pcwt_j2k_raw_bit(&s->mq);
                } else {
                    const uint32_t n = (uint32_t)(w >> 16u * k);
                    const uint32_t cx = (n & PCWT_J2K_F_MU) ? 2u : (n & PCWT_J2K_NB_SIG) ? 1u : 0u;
                    bit = pcwt_j2k_decode_cx(s, PCWT_J2K_CX_MR + cx);
                }
                pcwt_j2k_refine(s->c + (size_t)(y0 + k) * s->stride + x, ((bit ^ 1u) << bp) | half, s->far);
            }
            pcwt_j2k_store4(col, w | t << 15); /* the refined mark of each */
        }
    }
    *sp = st;
}

/* Cleanup pass (D.3.4), then the segmentation symbol when the style asks for it. */
static inline PCWT_HD void pcwt_j2k_cleanup_pass(pcwt_j2k_t1_state *sp, uint32_t bp, int segsym)
{
    pcwt_j2k_t1_state st = *sp; /* a local copy, as above */
    pcwt_j2k_scan_pass(&st, bp, 0, 1);
    if (segsym)
        for (int i = 0; i < 4; ++i)
            (void)pcwt_j2k_decode_cx(&st, PCWT_J2K_CX_UNI);
    *sp = st;
}

/* Checks a code-block's fields against the batch's lists (sizes as in j2k_batch.h). */
static inline PCWT_HD int pcwt_j2k_t1_check(const pcwt_j2k_cblk *cb, const pcwt_j2k_seg *segs,
                                            uint64_t seg_total, uint64_t data_size,
                                            uint64_t coef_count)
{
    if (cb->style & PCWT_J2K_STYLE_HT)
        return PCWT_J2K_T1_HT;
    if (cb->width == 0 || cb->height == 0 || cb->width > 1024 || cb->height > 1024 ||
        (uint32_t)cb->width * cb->height > 4096 || cb->width > cb->out_stride)
        return PCWT_J2K_T1_BAD_RECT;
    const uint64_t last = cb->out_offset + (uint64_t)(cb->height - 1) * cb->out_stride + cb->width;
    if (cb->out_offset >= coef_count || last > coef_count)
        return PCWT_J2K_T1_BAD_RECT;
    if (cb->orientation > PCWT_J2K_HH)
        return PCWT_J2K_T1_BAD_ORIENT;
    if ((uint64_t)cb->seg_first + cb->seg_count > seg_total)
        return PCWT_J2K_T1_BAD_SEGS;
    uint64_t passes = 0;
    for (uint32_t i = 0; i < cb->seg_count; ++i) {
        const pcwt_j2k_seg *g = &segs[cb->seg_first + i];
        if (g->offset > data_size || g->length > data_size - g->offset)
            return PCWT_J2K_T1_BAD_SEGS;
        passes += g->passes;
    }
    if (passes != cb->passes)
        return PCWT_J2K_T1_BAD_SEGS;
    if (cb->passes == 0)
        return PCWT_J2K_T1_OK;
    if (cb->zero_msbs > cb->mb)
        return PCWT_J2K_T1_BAD_PLANES;
    const uint32_t planes = (uint32_t)cb->mb - cb->zero_msbs;
    if (planes > PCWT_J2K_MAX_PLANES)
        return PCWT_J2K_T1_MANY_PLANES;
    if (planes == 0 || cb->passes > 3 * planes - 2)
        return PCWT_J2K_T1_BAD_PLANES;
    return PCWT_J2K_T1_OK;
}

/* Decodes a checked code-block into its rectangle at coefs + out_offset. state:
 * pcwt_j2k_state_words(width, height) words (any content). luts: its mq and sc tables and the zc
 * table of the code-block's orientation (shared memory on the GPU). cx: PCWT_J2K_CONTEXTS bytes
 * (any content). far: 1 refines in L2 (pcwt_j2k_refine, the GPU), 0 in place; the same
 * coefficients either way. */
static inline PCWT_HD void pcwt_j2k_t1_block_far(const pcwt_j2k_cblk *cb, const pcwt_j2k_seg *segs,
                                                 const uint8_t *data, int32_t *coefs, uint16_t *state,
                                                 const pcwt_j2k_t1_luts *luts, uint8_t *cx, uint32_t far)
{
    pcwt_j2k_t1_state s;
    s.far = far;
    s.c = (uint32_t *)(coefs + cb->out_offset);
    s.f = state;
    s.stride = cb->out_stride;
    s.w = cb->width;
    s.h = cb->height;
    s.vsc = (cb->style & PCWT_J2K_STYLE_VSC) != 0;
    s.mqt = luts->mq;
    s.zc = luts->zc[cb->orientation & 3u];
    s.sc = luts->sc;
    s.cx = cx;
    /* a magnitude is written when its coefficient becomes significant, read only after */
    for (uint32_t i = 0, n = pcwt_j2k_state_words(s.w, s.h); i < n; i += 4)
        pcwt_j2k_store4(s.f + i, 0);
    pcwt_j2k_reset_contexts(s.cx);
    pcwt_j2k_raw_init(&s.mq, data, 0); /* each segment starts its own */
    const int planes = (int)cb->mb - (int)cb->zero_msbs;
    int bp = planes;
    uint32_t type = 2; /* cleanup first */
    for (uint32_t g = 0; g < cb->seg_count; ++g) {
        const pcwt_j2k_seg *seg = &segs[cb->seg_first + g];
        const int raw = (cb->style & PCWT_J2K_STYLE_BYPASS) && bp <= planes - 4 && type < 2;
        if (raw)
            pcwt_j2k_raw_init(&s.mq, data + seg->offset, seg->length);
        else
            pcwt_j2k_mq_init(&s.mq, data + seg->offset, seg->length);
        for (uint32_t k = 0; k < seg->passes && bp >= 1; ++k) {
            if (type == 0)
                pcwt_j2k_sig_pass(&s, (uint32_t)bp, raw);
            else if (type == 1)
                pcwt_j2k_ref_pass(&s, (uint32_t)bp, raw);
            else
                pcwt_j2k_cleanup_pass(&s, (uint32_t)bp, (cb->style & PCWT_J2K_STYLE_SEGSYM) != 0);
            if ((cb->style & PCWT_J2K_STYLE_RESET) && !raw)
                pcwt_j2k_reset_contexts(s.cx);
            if (++type == 3) {
                type = 0;
                --bp;
            }
        }
    }
    /* sign * (doubled magnitude / 2), the half below the last decoded plane dropped; 0 where
       never significant. A stripe column at a time: its state words in one load, and its
       magnitudes all read before any is written, so that (from L2 on the GPU) they wait once. */
    for (uint32_t y0 = 0; y0 < s.h; y0 += 4) {
        const uint32_t rows = s.h - y0 < 4 ? s.h - y0 : 4;
        const uint16_t *col = pcwt_j2k_sw(&s, 0, y0);
        for (uint32_t x = 0; x < s.w; ++x, col += 4) {
            const uint64_t w = pcwt_j2k_load4(col); /* rows past the end are zero */
            const size_t at = (size_t)y0 * s.stride + x;
            uint32_t m[4];
            for (uint32_t k = 0; k < 4; ++k)
                m[k] = (w >> 16u * k & PCWT_J2K_F_SIG) ? pcwt_j2k_magnitude(s.c + at + k * s.stride, s.far) >> 1 : 0u;
            for (uint32_t k = 0; k < rows; ++k)
                coefs[cb->out_offset + at + k * s.stride] =
                    (w >> 16u * k & PCWT_J2K_F_NEG) ? -(int32_t)m[k] : (int32_t)m[k];
        }
    }
}

/* The same with the refinements in place (the CPU). */
static inline PCWT_HD void pcwt_j2k_t1_block(const pcwt_j2k_cblk *cb, const pcwt_j2k_seg *segs,
                                             const uint8_t *data, int32_t *coefs, uint16_t *state,
                                             const pcwt_j2k_t1_luts *luts, uint8_t *cx)
{
    pcwt_j2k_t1_block_far(cb, segs, data, coefs, state, luts, cx, 0);
}

#endif /* PCWT_J2K_T1_RULES_H */
