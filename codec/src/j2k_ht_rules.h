/* j2k_ht_rules.h - the HTJ2K block decoder (ITU-T T.814 | ISO/IEC 15444-15, clause 7): one
 * code-block's cleanup pass and, when present, its SigProp and MagRef passes, written once for the
 * CPU (j2k_ht.c, the reference) and the GPU, so that both decode the same coefficients.
 *
 * The cleanup segment (Lcup bytes) holds three streams: MagSgn growing forward from its start,
 * MEL forward and VLC backward sharing its last Scup bytes (Scup in its last 12 bits). Quads of
 * 2x2 samples are decoded in pairs along each row of quads: the quad's significance pattern rho
 * with its u_off and EMB bits e_k, e_1 from the CxtVLC code (j2k_ht_vlc.h) in a context of its
 * decoded neighbours (or, in context 0, a MEL event first), the exponent bound U_q from the U-VLC
 * code and kappa, then each significant sample's magnitude and sign bits from MagSgn. The second
 * segment holds SigProp forward and MagRef backward.
 *
 * Values are kept while decoding as OpenJPEG's HT decoder keeps them: sign in bit 31, the
 * magnitude twice over with the half of the bin below the last decoded plane, in the code-block's
 * own rectangle of the coefficient buffer; the last step writes sign * (magnitude / 2), its
 * reconstruction of a reversible path. Its limits are kept as well (at most one HT set, three
 * passes; Mb at most 30), so that what this decodes equals OpenJPEG's samples.
 *
 * Readers never leave their stream: past its end MagSgn and MEL read ones, VLC, SigProp and MagRef
 * zeros. Every loop is bounded by the code-block's size. */
#ifndef PCWT_J2K_HT_RULES_H
#define PCWT_J2K_HT_RULES_H

#include "hostdev.h"
#include "j2k_batch.h"

#include <stddef.h>
#include <stdint.h>

/* What pcwt_j2k_ht_check and pcwt_j2k_ht_block report. */
enum {
    PCWT_J2K_HT_OK = 0,
    PCWT_J2K_HT_BAD_RECT,     /* size out of 1..1024 / 4096, or the rectangle leaves the buffer */
    PCWT_J2K_HT_BAD_SEGS,     /* segments outside the batch's lists or data, passes not adding up */
    PCWT_J2K_HT_MANY_PASSES,  /* more than one HT set (placeholder passes): unsupported */
    PCWT_J2K_HT_MANY_PLANES,  /* Mb above 30: unsupported */
    PCWT_J2K_HT_BAD_PLANES,   /* as many missing bit-planes as Mb, or more */
    PCWT_J2K_HT_BAD_LENGTHS,  /* Lcup below 2, or the segments longer than the data */
    PCWT_J2K_HT_BAD_SCUP,     /* Scup outside 2..min(Lcup, 4079) */
    PCWT_J2K_HT_BAD_U,        /* an exponent bound above the code-block's planes */
    PCWT_J2K_HT_OUTSIDE       /* a significant sample outside the code-block */
};

/* Scratch bytes pcwt_j2k_ht_block needs: two rows of quad states, (width + 1) / 2 + 2 bytes each
 * (pcwt_j2k_ht_scratch), at most 1028 for 1024 columns. */
#define PCWT_J2K_HT_SCRATCH 1028u
#define pcwt_j2k_ht_scratch(width) (2u * (((uint32_t)(width) + 1u) / 2u + 2u))

/* A forward stream (MagSgn, SigProp): bits least significant first; a byte after 0xFF gives
 * 7 bits (its stuffed top bit is ored in, as OpenJPEG reads it). */
typedef struct pcwt_j2k_htf {
    const uint8_t *d;
    uint32_t len, pos, bits, fill, unstuff;
    uint64_t acc;
} pcwt_j2k_htf;

static inline PCWT_HD void pcwt_j2k_htf_init(pcwt_j2k_htf *r, const uint8_t *d, uint32_t len, uint32_t fill)
{
    r->d = d;
    r->len = len;
    r->pos = 0;
    r->bits = 0;
    r->fill = fill;
    r->unstuff = 0;
    r->acc = 0;
}

/* The next 32 bits, least significant first. */
static inline PCWT_HD uint32_t pcwt_j2k_htf_peek(pcwt_j2k_htf *r)
{
    while (r->bits <= 56) {
        uint32_t b = r->fill;
        if (r->pos < r->len)
            b = r->d[r->pos++];
        r->acc |= (uint64_t)b << r->bits;
        r->bits += r->unstuff ? 7u : 8u;
        r->unstuff = b == 0xFFu;
    }
    return (uint32_t)r->acc;
}

static inline PCWT_HD void pcwt_j2k_htf_skip(pcwt_j2k_htf *r, uint32_t n)
{
    r->acc >>= n;
    r->bits -= n;
}

/* A backward stream (VLC, MagRef): bytes from the end down, bits least significant first; a byte
 * whose low 7 bits are ones after a byte above 0x8F gives 7 bits. Zeros past its start. */
typedef struct pcwt_j2k_htr {
    const uint8_t *d;  /* one past the next byte to read */
    uint32_t left, bits, unstuff;
    uint64_t acc;
} pcwt_j2k_htr;

static inline PCWT_HD uint32_t pcwt_j2k_htr_peek(pcwt_j2k_htr *r)
{
    while (r->bits <= 56) {
        uint32_t b = 0;
        if (r->left) {
            b = *--r->d;
            r->left--;
        }
        r->acc |= (uint64_t)b << r->bits;
        r->bits += (r->unstuff && (b & 0x7Fu) == 0x7Fu) ? 7u : 8u;
        r->unstuff = b > 0x8Fu;
    }
    return (uint32_t)r->acc;
}

static inline PCWT_HD void pcwt_j2k_htr_skip(pcwt_j2k_htr *r, uint32_t n)
{
    r->acc >>= n;
    r->bits -= n;
}

/* The MEL decoder (T.814 7.3.3): 13 states, each a run length exponent; bits most significant
 * first from Scup bytes before the end, the last of them with its low nibble (Scup's) as ones. */
typedef struct pcwt_j2k_mel {
    const uint8_t *d;
    uint32_t len, pos, cur, nleft, unstuff;
    uint32_t k, run, one;
} pcwt_j2k_mel;

static inline PCWT_HD uint32_t pcwt_j2k_mel_bit(pcwt_j2k_mel *m)
{
    if (m->nleft == 0) {
        uint32_t b = 0xFFu;
        if (m->pos < m->len) {
            b = m->d[m->pos++];
            if (m->pos == m->len)
                b |= 0x0Fu;
        }
        m->cur = b;
        m->nleft = m->unstuff ? 7u : 8u;
        m->unstuff = b == 0xFFu;
    }
    return (m->cur >> --m->nleft) & 1u;
}

static inline PCWT_HD uint32_t pcwt_j2k_mel_event(pcwt_j2k_mel *m)
{
    for (;;) {
        if (m->run) {
            m->run--;
            return 0;
        }
        if (m->one) {
            m->one = 0;
            return 1;
        }
        const uint32_t e = m->k < 3 ? 0u : m->k < 6 ? 1u : m->k < 9 ? 2u : m->k < 11 ? 3u : m->k - 7u;
        if (pcwt_j2k_mel_bit(m)) {
            m->run = 1u << e;
            m->k = m->k < 12 ? m->k + 1 : 12;
        } else {
            uint32_t r = 0;
            for (uint32_t i = 0; i < e; ++i)
                r = r << 1 | pcwt_j2k_mel_bit(m);
            m->run = r;
            m->one = 1;
            m->k = m->k ? m->k - 1 : 0;
        }
    }
}

/* A U-VLC prefix (T.814 7.3.6): "1" 1, "01" 2, "001" 3, "000" 5, read from the VLC stream;
 * *sfx gets its suffix length. */
static inline PCWT_HD uint32_t pcwt_j2k_uvlc_prefix(pcwt_j2k_htr *v, uint32_t *sfx)
{
    const uint32_t b = pcwt_j2k_htr_peek(v);
    uint32_t pfx, n;
    if (b & 1u) {
        pfx = 1; n = 1; *sfx = 0;
    } else if (b & 2u) {
        pfx = 2; n = 2; *sfx = 0;
    } else if (b & 4u) {
        pfx = 3; n = 3; *sfx = 1;
    } else {
        pfx = 5; n = 3; *sfx = 5;
    }
    pcwt_j2k_htr_skip(v, n);
    return pfx;
}

static inline PCWT_HD uint32_t pcwt_j2k_ht_bits(pcwt_j2k_htr *v, uint32_t n)
{
    const uint32_t b = pcwt_j2k_htr_peek(v) & ((1u << n) - 1u);
    pcwt_j2k_htr_skip(v, n);
    return b;
}

/* The u values of a quad pair (0 where u_off is 0). mode: u_off of the first quad | the second's
 * << 1; initial row: the pair's MEL event when both are set (T.814 7.3.6). */
static inline PCWT_HD void pcwt_j2k_uvlc(pcwt_j2k_htr *v, uint32_t mode, int initial,
                                         pcwt_j2k_mel *mel, uint32_t u[2])
{
    u[0] = u[1] = 0;
    if (mode == 0)
        return;
    uint32_t s0, s1;
    if (mode != 3) {
        const uint32_t pf = pcwt_j2k_uvlc_prefix(v, &s0);
        u[mode - 1] = pf + pcwt_j2k_ht_bits(v, s0);
        return;
    }
    if (initial && pcwt_j2k_mel_event(mel)) {
        const uint32_t p0 = pcwt_j2k_uvlc_prefix(v, &s0);
        const uint32_t p1 = pcwt_j2k_uvlc_prefix(v, &s1);
        u[0] = 2 + p0 + pcwt_j2k_ht_bits(v, s0);
        u[1] = 2 + p1 + pcwt_j2k_ht_bits(v, s1);
        return;
    }
    const uint32_t p0 = pcwt_j2k_uvlc_prefix(v, &s0);
    if (initial && p0 > 2) {
        /* the first u above 2: the second is 1 or 2, one bit */
        u[1] = 1 + pcwt_j2k_ht_bits(v, 1);
        u[0] = p0 + pcwt_j2k_ht_bits(v, s0);
        return;
    }
    const uint32_t p1 = pcwt_j2k_uvlc_prefix(v, &s1);
    u[0] = p0 + pcwt_j2k_ht_bits(v, s0);
    u[1] = p1 + pcwt_j2k_ht_bits(v, s1);
}

static inline PCWT_HD uint32_t pcwt_j2k_ht_bitlen(uint32_t v) { return v ? (uint32_t)PCWT_LOG2(v) + 1u : 0u; }

/* The sizes and segments of a code-block with the HT style, as pcwt_j2k_t1_check does for Part 1. */
static inline PCWT_HD int pcwt_j2k_ht_check(const pcwt_j2k_cblk *cb, const pcwt_j2k_seg *segs,
                                            uint64_t seg_total, uint64_t data_size, uint64_t coef_count)
{
    if (cb->width == 0 || cb->height == 0 || cb->width > 1024 || cb->height > 1024 ||
        (uint32_t)cb->width * cb->height > 4096 || cb->width > cb->out_stride)
        return PCWT_J2K_HT_BAD_RECT;
    const uint64_t last = cb->out_offset + (uint64_t)(cb->height - 1) * cb->out_stride + cb->width;
    if (cb->out_offset >= coef_count || last > coef_count)
        return PCWT_J2K_HT_BAD_RECT;
    if ((uint64_t)cb->seg_first + cb->seg_count > seg_total)
        return PCWT_J2K_HT_BAD_SEGS;
    uint64_t passes = 0;
    for (uint32_t i = 0; i < cb->seg_count; ++i) {
        const pcwt_j2k_seg *g = &segs[cb->seg_first + i];
        if (g->offset > data_size || g->length > data_size - g->offset)
            return PCWT_J2K_HT_BAD_SEGS;
        passes += g->passes;
    }
    if (passes != cb->passes)
        return PCWT_J2K_HT_BAD_SEGS;
    return PCWT_J2K_HT_OK;
}

/* The final reversible coefficient of a decoded value (sign in bit 31, the magnitude twice over):
 * sign * (magnitude / 2), as OpenJPEG reconstructs it. */
static inline PCWT_HD uint32_t pcwt_j2k_ht_final(uint32_t v)
{
    const int32_t m = (int32_t)((v & 0x7FFFFFFFu) >> 1);
    return (uint32_t)((v >> 31) ? -m : m);
}

/* One quad's samples from MagSgn into the rectangle c (row pitch s) at (x, y), every sample of it
 * inside the code-block (inside: bit n for sample n) written, 0 where insignificant; final: as
 * final coefficients (no pass follows). Updates the state of the quad row below (ls: sigma << 7 |
 * the largest exponent of the bottom samples at columns 2q - 1 and 2q, entries q and q + 1). */
static inline PCWT_HD void pcwt_j2k_ht_quad(pcwt_j2k_htf *ms, uint32_t qinf, uint32_t U, uint32_t p,
                                            uint32_t inside, int final, uint32_t *c, uint32_t s, uint8_t *ls)
{
    for (uint32_t n = 0; n < 4; ++n) {
        if (!((inside >> n) & 1u))
            continue;
        uint32_t out = 0;
        if ((qinf >> n) & 1u) {
            const uint32_t bits = pcwt_j2k_htf_peek(ms);
            const uint32_t m = U - ((qinf >> (5 + n)) & 1u);
            pcwt_j2k_htf_skip(ms, m);
            uint32_t v = m < 32 ? bits & ((1u << m) - 1u) : bits;
            v |= (m < 32 ? ((qinf >> (9 + n)) & 1u) << m : 0u) | 1u;
            out = (bits << 31) | ((v + 2u) << (p - 1u));
            if (final)
                out = pcwt_j2k_ht_final(out);
            if (n & 1u) {
                const uint32_t e = pcwt_j2k_ht_bitlen(v);
                uint8_t *l = &ls[n >> 1];
                const uint32_t old = (n == 1) ? (*l & 0x7Fu) : 0u;
                *l = (uint8_t)(0x80u | (old > e ? old : e));
            }
        }
        c[(n & 1u) * s + (n >> 1)] = out;
    }
}

/* The cleanup pass into the rectangle c (w x h, pitch s), p the bit-plane of its bin centres
 * (p >= 1), zp2 the largest exponent bound allowed; final: final coefficients (no pass follows). */
static inline PCWT_HD int pcwt_j2k_ht_cleanup(const uint8_t *cup, uint32_t lcup, uint32_t scup,
                                              uint32_t p, uint32_t zp2, int final, uint32_t *c, uint32_t w,
                                              uint32_t h, uint32_t s, uint8_t *scratch,
                                              const uint16_t *vlc_lut)
{
    pcwt_j2k_htf ms;
    pcwt_j2k_htf_init(&ms, cup, lcup - scup, 0xFFu);
    pcwt_j2k_mel mel = {cup + lcup - scup, scup - 1, 0, 0, 0, 0, 0, 0, 0};
    /* VLC: the top nibble of the byte before the last, then the bytes below it */
    pcwt_j2k_htr vlc;
    {
        const uint32_t d = cup[lcup - 2];
        vlc.d = cup + lcup - 2;
        vlc.left = scup - 2;
        vlc.acc = d >> 4;
        vlc.bits = ((d >> 4) & 7u) == 7u ? 3u : 4u;
        vlc.unstuff = (d | 0x0Fu) > 0x8Fu;
    }
    const uint32_t nq = (w + 1) / 2;
    uint8_t *above = scratch, *below = scratch + nq + 2;
    for (uint32_t i = 0; i < nq + 2; ++i)
        above[i] = below[i] = 0;
    for (uint32_t y = 0; y < h; y += 2) {
        const int initial = y == 0;
        const uint16_t *lut = vlc_lut + (initial ? 0 : 1024);
        uint32_t *row = c + (size_t)y * s;
        for (uint32_t i = 0; i < nq + 2; ++i)
            below[i] = 0;
        uint32_t cq = 0; /* the left neighbours' part of the context */
        for (uint32_t x = 0; x < w; x += 4) {
            const uint32_t q = x / 2;
            uint32_t qinf[2] = {0, 0};
            for (uint32_t k = 0; k < 2; ++k) {
                if (k == 1 && x + 2 >= w)
                    break;
                uint32_t ctx = cq;
                if (!initial)
                    ctx |= (above[q + k] >> 7) | ((above[q + k + 1] >> 5) & 4u);
                uint32_t t = lut[ctx << 7 | (pcwt_j2k_htr_peek(&vlc) & 0x7Fu)];
                if (ctx == 0 && !pcwt_j2k_mel_event(&mel))
                    t = 0;
                pcwt_j2k_htr_skip(&vlc, t >> 13);
                qinf[k] = t;
                cq = initial ? (((t | t >> 1) & 1u) | ((t >> 1) & 6u)) : ((t >> 1) | (t >> 2)) & 2u;
            }
            uint32_t u[2];
            pcwt_j2k_uvlc(&vlc, ((qinf[0] >> 4) & 1u) | ((qinf[1] >> 3) & 2u), initial, &mel, u);
            uint32_t U[2];
            for (uint32_t k = 0; k < 2; ++k) {
                uint32_t kappa = 1;
                const uint32_t rho = qinf[k] & 15u;
                if (!initial && (rho & (rho - 1u))) {
                    const uint32_t e0 = above[q + k] & 0x7Fu, e1 = above[q + k + 1] & 0x7Fu;
                    const uint32_t e = e0 > e1 ? e0 : e1;
                    kappa = e > 2 ? e - 1 : 1;
                }
                U[k] = u[k] + kappa;
            }
            if (U[0] > zp2 || U[1] > zp2)
                return PCWT_J2K_HT_BAD_U;
            /* the samples inside the code-block: rho bit n is column n >> 1, row n & 1 */
            uint32_t inside = 0xFFu;
            if (x + 4 > w)
                inside >>= (x + 4 - w) * 2;
            if (y + 2 > h)
                inside &= 0x55u;
            if (((qinf[0] & 15u) | (qinf[1] & 15u) << 4) & ~inside)
                return PCWT_J2K_HT_OUTSIDE;
            pcwt_j2k_ht_quad(&ms, qinf[0], U[0], p, inside & 15u, final, row + x, s, below + q);
            if (inside >> 4)
                pcwt_j2k_ht_quad(&ms, qinf[1], U[1], p, inside >> 4, final, row + x + 2, s, below + q + 1);
        }
        uint8_t *t = above;
        above = below;
        below = t;
    }
    return PCWT_J2K_HT_OK;
}

/* Significant now, for the SigProp pass: decoded in the cleanup, or made significant earlier in
 * this pass (in the code-block, or among the group's new ones in mask). */
static inline PCWT_HD int pcwt_j2k_ht_sig(const uint32_t *c, uint32_t s, int32_t x, int32_t y,
                                          uint32_t w, uint32_t h)
{
    if (x < 0 || y < 0 || (uint32_t)x >= w || (uint32_t)y >= h)
        return 0;
    return c[(size_t)y * s + (uint32_t)x] != 0;
}

/* MagRef (T.814 7.5): one bit for every sample significant after the cleanup, stripe by stripe,
 * column by column. */
static inline PCWT_HD void pcwt_j2k_ht_magref(pcwt_j2k_htr *mr, uint32_t p, uint32_t *c, uint32_t w,
                                              uint32_t h, uint32_t s)
{
    const uint32_t half = 1u << (p - 2u);
    for (uint32_t y0 = 0; y0 < h; y0 += 4)
        for (uint32_t x = 0; x < w; ++x)
            for (uint32_t y = y0; y < y0 + 4 && y < h; ++y) {
                uint32_t *v = &c[(size_t)y * s + x];
                if (!*v)
                    continue;
                const uint32_t b = pcwt_j2k_htr_peek(mr) & 1u;
                pcwt_j2k_htr_skip(mr, 1);
                *v = (*v ^ ((1u - b) << (p - 1u))) | half;
            }
}

/* SigProp (T.814 7.4): a bit for every insignificant sample with a significant neighbour (the
 * row below the stripe left out with the vertically causal style), scanned stripe by stripe,
 * column by column; after every four columns the signs of the samples they made significant. */
static inline PCWT_HD void pcwt_j2k_ht_sigprop(pcwt_j2k_htf *sp, uint32_t p, uint32_t *c, uint32_t w,
                                               uint32_t h, uint32_t s, int vsc)
{
    const uint32_t val = 3u << (p - 2u);
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        for (uint32_t x0 = 0; x0 < w; x0 += 4) {
            uint32_t fresh = 0; /* bit (x - x0) * 4 + (y - y0) */
            for (uint32_t x = x0; x < x0 + 4 && x < w; ++x)
                for (uint32_t y = y0; y < y0 + 4 && y < h; ++y) {
                    if (c[(size_t)y * s + x])
                        continue;
                    int any = 0;
                    for (int dy = -1; dy <= 1 && !any; ++dy) {
                        if (dy == 1 && vsc && (y & 3u) == 3u)
                            continue;
                        for (int dx = -1; dx <= 1 && !any; ++dx) {
                            if (!dx && !dy)
                                continue;
                            const int32_t nx = (int32_t)x + dx, ny = (int32_t)y + dy;
                            any = pcwt_j2k_ht_sig(c, s, nx, ny, w, h);
                            if (!any && nx >= (int32_t)x0 && nx < (int32_t)x0 + 4 && ny >= (int32_t)y0 &&
                                ny < (int32_t)y0 + 4)
                                any = (fresh >> ((uint32_t)(nx - (int32_t)x0) * 4u + (uint32_t)(ny - (int32_t)y0))) & 1u;
                        }
                    }
                    if (!any)
                        continue;
                    const uint32_t b = pcwt_j2k_htf_peek(sp) & 1u;
                    pcwt_j2k_htf_skip(sp, 1);
                    fresh |= b << ((x - x0) * 4u + (y - y0));
                }
            for (uint32_t i = 0; i < 16; ++i) {
                if (!((fresh >> i) & 1u))
                    continue;
                const uint32_t b = pcwt_j2k_htf_peek(sp) & 1u;
                pcwt_j2k_htf_skip(sp, 1);
                c[(size_t)(y0 + (i & 3u)) * s + x0 + (i >> 2)] = (b << 31) | val;
            }
        }
    }
}

/* What pcwt_j2k_ht_prepare finds from a code-block's segments and its cleanup segment's last
 * two bytes: the passes decoded (0: every coefficient is 0), p, the segment lengths and Scup. */
typedef struct pcwt_j2k_ht_plan {
    uint32_t passes, p, len1, len2, scup;
} pcwt_j2k_ht_plan;

/* The checks before decoding, OpenJPEG's in its order (the host runs them for the GPU too). */
static inline PCWT_HD int pcwt_j2k_ht_prepare(const pcwt_j2k_cblk *cb, const pcwt_j2k_seg *segs,
                                              const uint8_t *data, pcwt_j2k_ht_plan *pl)
{
    pl->passes = 0;
    pl->p = pl->len1 = pl->len2 = pl->scup = 0;
    if (cb->mb == 0 || cb->seg_count == 0)
        return PCWT_J2K_HT_OK;
    const pcwt_j2k_seg *s0 = &segs[cb->seg_first];
    const pcwt_j2k_seg *s1 = cb->seg_count > 1 ? s0 + 1 : NULL;
    uint32_t passes = s0->passes + (s1 ? s1->passes : 0u);
    const uint32_t len1 = s0->length, len2 = (passes > 1 && s1) ? s1->length : 0u;
    if (passes > 1 && len2 == 0)
        passes = 1;
    if (passes > 3)
        return PCWT_J2K_HT_MANY_PASSES;
    if (cb->mb > 30)
        return PCWT_J2K_HT_MANY_PLANES;
    if ((uint32_t)cb->zero_msbs + 1u > cb->mb)
        return PCWT_J2K_HT_BAD_PLANES;
    if ((uint32_t)cb->zero_msbs + 1u == cb->mb)
        passes = 1;
    if (passes == 0)
        return PCWT_J2K_HT_OK;
    if (len1 < 2)
        return PCWT_J2K_HT_BAD_LENGTHS;
    const uint8_t *cup = data + s0->offset;
    const uint32_t scup = ((uint32_t)cup[len1 - 1] << 4) + (cup[len1 - 2] & 0x0Fu);
    if (scup < 2 || scup > len1 || scup > 4079)
        return PCWT_J2K_HT_BAD_SCUP;
    pl->passes = passes;
    pl->p = (uint32_t)cb->mb - cb->zero_msbs;
    pl->len1 = len1;
    pl->len2 = len2;
    pl->scup = scup;
    return PCWT_J2K_HT_OK;
}

/* Decodes a checked HT code-block into its rectangle at coefs + out_offset (its final reversible
 * coefficients; zeros where it fails). scratch: pcwt_j2k_ht_scratch(width) bytes (at most PCWT_J2K_HT_SCRATCH); vlc_lut:
 * PCWT_J2K_HT_VLC_LUT_INIT. */
static inline PCWT_HD int pcwt_j2k_ht_block(const pcwt_j2k_cblk *cb, const pcwt_j2k_seg *segs,
                                            const uint8_t *data, int32_t *coefs, uint8_t *scratch,
                                            const uint16_t *vlc_lut)
{
    uint32_t *c = (uint32_t *)(coefs + cb->out_offset);
    const uint32_t w = cb->width, h = cb->height, s = cb->out_stride;
    pcwt_j2k_ht_plan pl;
    int r = pcwt_j2k_ht_prepare(cb, segs, data, &pl);
    if (r == PCWT_J2K_HT_OK && pl.passes) {
        /* the cleanup writes every sample: final coefficients when no pass follows */
        const pcwt_j2k_seg *s0 = &segs[cb->seg_first];
        r = pcwt_j2k_ht_cleanup(data + s0->offset, pl.len1, pl.scup, pl.p, cb->zero_msbs + 2u, pl.passes == 1, c, w,
                                h, s, scratch, vlc_lut);
        if (r == PCWT_J2K_HT_OK && pl.passes == 1)
            return r;
    }
    if (r != PCWT_J2K_HT_OK || pl.passes == 0) {
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x)
                c[(size_t)y * s + x] = 0;
        return r;
    }
    const pcwt_j2k_seg *s0 = &segs[cb->seg_first];
    if (pl.passes > 2) {
        pcwt_j2k_htr mr = {data + s0[1].offset + pl.len2, pl.len2, 0, 1, 0};
        pcwt_j2k_ht_magref(&mr, pl.p, c, w, h, s);
    }
    {
        pcwt_j2k_htf sp;
        pcwt_j2k_htf_init(&sp, data + s0[1].offset, pl.len2, 0);
        pcwt_j2k_ht_sigprop(&sp, pl.p, c, w, h, s, (cb->style & PCWT_J2K_STYLE_VSC) != 0);
    }
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            c[(size_t)y * s + x] = pcwt_j2k_ht_final(c[(size_t)y * s + x]);
    return r;
}

#endif /* PCWT_J2K_HT_RULES_H */
