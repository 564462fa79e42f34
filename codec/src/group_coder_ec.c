/* group_coder_ec.c - element and group coding of one plane, entropy profile (profile 1,
 * docs/FORMAT.md Sec. 5). Same bands, groups, MQDs and references as the baseline; each group is
 * coded on its own (models reset at its start), so groups decode in parallel exactly as in the
 * baseline. Per element, in raster order within the group:
 *
 *   MQD      a bit "m = -1" with model zero[z]; then, when m >= 0, d = r - m as truncated unary
 *            (bins "d > k", k = 0..r-1) with model mqd[e][min(k,3)]; z and e from the neighbouring
 *            MQDs (Sec. 5.3).
 *   per coefficient c of TL, TR, BL, BR (only when m >= 0), q = QL(c):
 *            t = m - q as truncated unary (bins "t > k", k = 0..m), model mag[min(m,3)][found][min(k,7)]
 *            (found: an earlier coefficient of this element has q = m); skipped, q = m implied, for the
 *            last coefficient of an LL or level-1 element when none of the first three reached m;
 *            when q >= 1: bit q-1 of |c| with model mant[min(q,7)-1], bits q-2..0 raw;
 *            when c != 0: the sign (1 = negative) with model sign[left sign][above sign].
 *
 * Modelled bits go to the group's range-coder stream, raw bits MSB first to its raw stream. A group
 * whose entropy record would be larger than its baseline bit string is stored as that bit string
 * (raw mode), so a plane is never larger than in the baseline profile. */
#include "ec_tables.h"
#include "element.h"
#include "rangecoder.h"

#include <stdlib.h>
#include <string.h>

enum {
    ZERO_CTX = 6,
    MQD_CTX = 5 * 4,
    MAG_CTX = 4 * 2 * 8,
    MANT_CTX = 7,
    SIGN_CTX = 9,
    ALL_CTX = ZERO_CTX + MQD_CTX + MAG_CTX + MANT_CTX + SIGN_CTX
};

typedef struct group_models {
    pcwt_bit_model m[ALL_CTX];
} group_models;

_Static_assert(ALL_CTX == PCWT_EC_CONTEXTS, "context layout of ec_tables.h");

/* Band class of the initial probabilities: 0 LL, 1 level 1, 2 level 2, 3 levels 3 and up. */
static inline int band_class(const pcwt_band *band, uint32_t b)
{
    return b == 0 ? 0 : band->level < 3 ? (int)band->level : 3;
}

static inline void models_reset(group_models *g, int cls)
{
    const uint16_t *init = pcwt_ec_init_p[cls];
    for (int i = 0; i < ALL_CTX; i++) {
        g->m[i].p = init[i];
        g->m[i].s = PCWT_EC_INIT_N + 1;
    }
}

static inline pcwt_bit_model *zero_model(group_models *g, int z) { return &g->m[z]; }
static inline pcwt_bit_model *mqd_model(group_models *g, int e, int k)
{
    return &g->m[ZERO_CTX + e * 4 + (k < 3 ? k : 3)];
}
static inline pcwt_bit_model *mag_model(group_models *g, int m, int found, int k)
{
    return &g->m[ZERO_CTX + MQD_CTX + ((m < 3 ? m : 3) * 2 + found) * 8 + (k < 7 ? k : 7)];
}
static inline pcwt_bit_model *mant_model(group_models *g, int q)
{
    return &g->m[ZERO_CTX + MQD_CTX + MAG_CTX + (q < 7 ? q : 7) - 1];
}
static inline pcwt_bit_model *sign_model(group_models *g, int left, int above)
{
    return &g->m[ZERO_CTX + MQD_CTX + MAG_CTX + MANT_CTX + (left + 1) * 3 + above + 1];
}

static inline int is_top(const pcwt_pyramid *p, uint32_t b)
{
    return p->plan.levels ? b < 4 : b == 0;
}

static inline int reference(const pcwt_pyramid *p, uint32_t b, int qmax, uint32_t x, uint32_t y)
{
    if (is_top(p, b))
        return qmax;
    const pcwt_band *parent = &p->band[b - 3];
    return parent->mqd[(size_t)(x / 2) * parent->mcols + y / 2];
}

/* A group's region of elements: rows gx..xe-1, columns gy..ye-1. */
typedef struct group_span {
    uint32_t gx, gy, xe, ye;
} group_span;

/* Contexts of the MQD of element (x, y) from its neighbours left, above-left, above and
 * above-right that lie inside the group g: *e = min(max(r - their largest MQD, 0), 3), or 4 when
 * none lies inside; *z from the count nz of those (na) with MQD -1: 5 when na = 0, else 0 when
 * nz = 0, 4 when nz = na, otherwise 1 + floor(3 nz / na). */
static inline void mqd_context(const pcwt_band *band, const group_span *g, uint32_t x, uint32_t y,
                               int r, int *e, int *z)
{
    int pm = -2, na = 0, nz = 0;
    const int8_t *row = band->mqd + (size_t)x * band->mcols;
    if (y > g->gy) {
        pm = row[y - 1];
        na++;
        nz += pm < 0;
    }
    if (x > g->gx) {
        const int8_t *up = row - band->mcols;
        const int a = up[y];
        pm = a > pm ? a : pm;
        na++;
        nz += a < 0;
        if (y > g->gy) {
            const int b = up[y - 1];
            pm = b > pm ? b : pm;
            na++;
            nz += b < 0;
        }
        if (y + 1 < g->ye) {
            const int c = up[y + 1];
            pm = c > pm ? c : pm;
            na++;
            nz += c < 0;
        }
    }
    if (na == 0) {
        *e = 4;
        *z = 5;
        return;
    }
    const int d = r - pm;
    *e = d < 0 ? 0 : d > 3 ? 3 : d;
    *z = nz == 0 ? 0 : nz == na ? 4 : 1 + 3 * nz / na;
}

static inline int sign_of(int32_t v) { return (v > 0) - (v < 0); }

/* QL (Sec. 4.1) without a branch: floor(log2 a), -1 for 0. */
static inline int ql_of(uint32_t a) { return 31 - __builtin_clz(a | 1u) - (a == 0); }

/* Signs of the left and above coefficients (0 when outside the group). */
static inline void sign_context(const pcwt_band *band, const group_span *g, uint32_t cx, uint32_t cy,
                                int *left, int *above)
{
    const int32_t *c = band->coef + (size_t)cx * band->cols + cy;
    *left = cy > 2 * g->gy ? sign_of(c[-1]) : 0;
    *above = cx > 2 * g->gx ? sign_of(c[-(ptrdiff_t)band->cols]) : 0;
}

/* ---- sizes ---------------------------------------------------------------------------------- */

static inline size_t leb128_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline uint8_t *leb128_put(uint8_t *d, uint64_t v)
{
    while (v >= 0x80) {
        *d++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *d++ = (uint8_t)v;
    return d;
}

/* Reads an unsigned LEB128 value below 2^32 in canonical (shortest) form; 0 on error. */
static inline int leb128_get(const uint8_t *s, size_t size, size_t *pos, uint32_t *out)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < 5; i++) {
        if (*pos >= size)
            return 0;
        const uint8_t b = s[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            if (i > 0 && b == 0)
                return 0; /* overlong */
            if (v > 0xFFFFFFFFu)
                return 0;
            *out = (uint32_t)v;
            return 1;
        }
    }
    return 0;
}

/* ---- encoder -------------------------------------------------------------------------------- */

/* Codes one group in entropy mode; returns the length in bits of its baseline bit string (the
 * raw-mode alternative). */
static uint64_t encode_group_entropy(const pcwt_pyramid *p, uint32_t b, int qmax,
                                     const group_span *g, group_models *gm, pcwt_rc_enc *rc,
                                     pcwt_bitwriter *raw)
{
    uint64_t raw_bits = 0;
    const pcwt_band *band = &p->band[b];
    const int exact = b == 0 || band->level == 1; /* m is the largest QL of the element itself */
    models_reset(gm, band_class(band, b));
    for (uint32_t x = g->gx; x < g->xe; x++) {
        for (uint32_t y = g->gy; y < g->ye; y++) {
            const int r = reference(p, b, qmax, x, y);
            if (r < 0)
                continue;
            const int m = band->mqd[(size_t)x * band->mcols + y];
            raw_bits += pcwt_element_bits(r, m);
            int e, z;
            mqd_context(band, g, x, y, r, &e, &z);
            pcwt_rc_encode(rc, zero_model(gm, z), m < 0);
            if (m < 0)
                continue;
            const int d = r - m;
            for (int k = 0; k < r; k++) {
                pcwt_rc_encode(rc, mqd_model(gm, e, k), d > k);
                if (d <= k)
                    break;
            }
            int found = 0;
            for (uint32_t i = 0; i < 4; i++) {
                const uint32_t cx = 2 * x + (i >> 1), cy = 2 * y + (i & 1);
                const int32_t c = band->coef[(size_t)cx * band->cols + cy];
                const uint32_t a = pcwt_magnitude(c);
                const int q = ql_of(a);
                if (!(exact && i == 3 && !found)) {
                    const int t = m - q;
                    pcwt_bit_model *mm = mag_model(gm, m, found, 0);
                    for (int k = 0; k <= m; k++) {
                        pcwt_rc_encode(rc, mm + (k < 7 ? k : 7), t > k);
                        if (t <= k)
                            break;
                    }
                }
                if (q == m)
                    found = 1;
                if (q < 0)
                    continue;
                if (q >= 1) {
                    pcwt_rc_encode(rc, mant_model(gm, q), (a >> (q - 1)) & 1u);
                    if (q >= 2)
                        pcwt_bw_put(raw, a & ((1u << (q - 1)) - 1u), (uint32_t)(q - 1));
                }
                int left, above;
                sign_context(band, g, cx, cy, &left, &above);
                pcwt_rc_encode(rc, sign_model(gm, left, above), c < 0);
            }
        }
    }
    return raw_bits;
}

/* Scratch for one group's two streams; sized for the largest baseline group of the plane. */
typedef struct ec_scratch {
    uint8_t *a, *r;
    size_t cap;
} ec_scratch;

pcwt_status pcwt_ec_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc,
                                   uint8_t *dst, size_t cap, size_t *written)
{
    /* Raw-mode records are the baseline bit strings: a group's entropy record is kept only when
     * it is not larger, so the raw group size bounds both scratch streams. */
    const uint64_t per_element = qmax >= 0 ? 4u * (uint64_t)qmax + 9u : 1u;
    const uint64_t scratch = ((uint64_t)gr * gc * per_element + 7) / 8 + 64;
    ec_scratch s;
    s.cap = (size_t)scratch;
    s.a = malloc(2 * s.cap);
    if (!s.a)
        return PCWT_ERR_OUT_OF_MEMORY;
    s.r = s.a + s.cap;
    group_models gm;
    size_t off = 0;
    pcwt_status st = PCWT_OK;
    for (uint32_t b = 0; b < p->band_count && st == PCWT_OK; b++) {
        const pcwt_band *band = &p->band[b];
        for (uint32_t gx = 0; gx < band->mrows && st == PCWT_OK; gx += gr) {
            for (uint32_t gy = 0; gy < band->mcols; gy += gc) {
                group_span g = {gx, gy, gx + gr < band->mrows ? gx + gr : band->mrows,
                                gy + gc < band->mcols ? gy + gc : band->mcols};
                /* The scratch holds any raw record of the plane: a range-coder stream that does
                 * not fit (overflow) is longer than the raw record, which is then used. */
                pcwt_rc_enc rc;
                pcwt_rc_enc_init(&rc, s.a, s.cap);
                pcwt_bitwriter bw;
                pcwt_bw_init(&bw, s.r);
                const uint64_t raw_bits = encode_group_entropy(p, b, qmax, &g, &gm, &rc, &bw);
                const uint64_t raw_bytes = (raw_bits + 7) / 8;
                const uint64_t raw_record = leb128_size(2 * raw_bits + 1) + raw_bytes;
                const size_t alen = pcwt_rc_enc_finish(&rc, s.a);
                const size_t rlen = (size_t)(pcwt_bw_flush(&bw) - s.r);
                const uint64_t ent_record = leb128_size(2 * (uint64_t)alen) + leb128_size(rlen) +
                                            alen + rlen;
                const int entropy = !rc.overflow && ent_record <= raw_record;
                const uint64_t need = entropy ? ent_record : raw_record;
                if (need > cap - off) {
                    st = PCWT_ERR_BUFFER_TOO_SMALL;
                    break;
                }
                uint8_t *d = dst + off;
                if (entropy) {
                    d = leb128_put(d, 2 * (uint64_t)alen);
                    d = leb128_put(d, rlen);
                    memcpy(d, s.a, alen);
                    memcpy(d + alen, s.r, rlen);
                } else {
                    d = leb128_put(d, 2 * raw_bits + 1);
                    pcwt_bitwriter w;
                    pcwt_bw_init(&w, d);
                    for (uint32_t x = g.gx; x < g.xe; x++) {
                        for (uint32_t y = g.gy; y < g.ye; y++) {
                            const int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
                            const int32_t c[4] = {r0[0], r0[1], r0[band->cols], r0[band->cols + 1]};
                            pcwt_element_encode(&w, reference(p, b, qmax, x, y),
                                                band->mqd[(size_t)x * band->mcols + y], c);
                        }
                    }
                    pcwt_bw_flush(&w);
                }
                off += (size_t)need;
            }
        }
    }
    free(s.a);
    *written = off;
    return st;
}

/* ---- decoder -------------------------------------------------------------------------------- */

/* MSB-first reader of a group's raw stream: whole 64-bit loads while 8 bytes remain, zero bits
 * past the end; pos counts the bits taken. */
typedef struct raw_reader {
    const uint8_t *p, *end;
    uint64_t acc; /* the next bits, MSB first; n of them are valid */
    uint32_t n;
    uint64_t pos;
} raw_reader;

static inline void raw_init(raw_reader *r, const uint8_t *src, size_t size)
{
    r->p = src;
    r->end = src + size;
    r->acc = 0;
    r->n = 0;
    r->pos = 0;
}

/* Reads nbits (1..30). */
static inline uint32_t raw_get(raw_reader *r, uint32_t nbits)
{
    if (r->n < nbits) {
        if (r->end - r->p >= 8) {
            uint64_t w;
            memcpy(&w, r->p, 8);
            w = __builtin_bswap64(w);
            r->acc |= w >> r->n;
            r->p += (63 - r->n) >> 3;
            r->n |= 56;
        } else {
            while (r->n <= 56) {
                const uint64_t b = r->p < r->end ? *r->p++ : 0u;
                r->acc |= b << (56 - r->n);
                r->n += 8;
            }
        }
    }
    const uint32_t v = (uint32_t)(r->acc >> (64 - nbits));
    r->acc <<= nbits;
    r->n -= nbits;
    r->pos += nbits;
    return v;
}

/* Decodes one entropy-mode group; returns 0 when the streams are inconsistent. */
static inline int decode_group_entropy(pcwt_pyramid *p, uint32_t b, int qmax, const group_span *g,
                                group_models *gm, const uint8_t *a, size_t alen, const uint8_t *rs,
                                size_t rlen, const int exact)
{
    pcwt_band *band = &p->band[b];
    if (alen && a[alen - 1] == 0)
        return 0; /* trailing zero bytes are never written */
    models_reset(gm, band_class(band, b));
    pcwt_rc_dec rc;
    pcwt_rc_dec_init(&rc, a, alen);
    raw_reader raw;
    raw_init(&raw, rs, rlen);
    for (uint32_t x = g->gx; x < g->xe; x++) {
        for (uint32_t y = g->gy; y < g->ye; y++) {
            const int r = reference(p, b, qmax, x, y);
            int m = -1;
            if (r >= 0) {
                int e, z;
                mqd_context(band, g, x, y, r, &e, &z);
                if (!pcwt_rc_decode(&rc, zero_model(gm, z))) {
                    int d = 0;
                    while (d < r && pcwt_rc_decode(&rc, mqd_model(gm, e, d)))
                        d++;
                    m = r - d;
                }
            }
            band->mqd[(size_t)x * band->mcols + y] = (int8_t)m;
            int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
            if (m < 0) {
                r0[0] = r0[1] = r0[band->cols] = r0[band->cols + 1] = 0;
                continue;
            }
            int found = 0;
            for (uint32_t i = 0; i < 4; i++) {
                const uint32_t cx = 2 * x + (i >> 1), cy = 2 * y + (i & 1);
                int q = m;
                if (!(exact && i == 3 && !found)) {
                    pcwt_bit_model *mm = mag_model(gm, m, found, 0);
                    int t = 0;
                    while (t <= m && pcwt_rc_decode(&rc, mm + (t < 7 ? t : 7)))
                        t++;
                    q = m - t;
                }
                if (q == m)
                    found = 1;
                int32_t *dst = band->coef + (size_t)cx * band->cols + cy;
                if (q < 0) {
                    *dst = 0;
                    continue;
                }
                uint32_t v = 1;
                if (q >= 1) {
                    v = (v << 1) | pcwt_rc_decode(&rc, mant_model(gm, q));
                    if (q >= 2)
                        v = (v << (q - 1)) | raw_get(&raw, (uint32_t)(q - 1));
                }
                int left, above;
                sign_context(band, g, cx, cy, &left, &above);
                *dst = pcwt_rc_decode(&rc, sign_model(gm, left, above)) ? -(int32_t)v : (int32_t)v;
            }
        }
        if (raw.pos > 8 * (uint64_t)rlen)
            return 0; /* stops a hostile group early */
    }
    /* Both streams must end exactly where the encoder ended them. */
    if (rc.code >= rc.range || (size_t)(rc.p - a) + rc.reads < alen)
        return 0;
    if ((raw.pos + 7) / 8 != rlen)
        return 0;
    const uint32_t pad = (uint32_t)((8 - raw.pos % 8) % 8);
    if (pad && raw_get(&raw, pad) != 0)
        return 0;
    return 1;
}

/* Decodes one raw-mode group (baseline element codes); returns 0 on an inconsistency. */
static int decode_group_raw(pcwt_pyramid *p, uint32_t b, int qmax, const group_span *g,
                            const uint8_t *src, uint32_t nbits)
{
    pcwt_band *band = &p->band[b];
    pcwt_bitreader rd;
    pcwt_br_init(&rd, src, (nbits + 7u) / 8u);
    for (uint32_t x = g->gx; x < g->xe; x++) {
        for (uint32_t y = g->gy; y < g->ye; y++) {
            int32_t c[4];
            const int m = pcwt_element_decode(&rd, reference(p, b, qmax, x, y), c);
            if (m < -1)
                return 0;
            band->mqd[(size_t)x * band->mcols + y] = (int8_t)m;
            int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
            r0[0] = c[0];
            r0[1] = c[1];
            r0[band->cols] = c[2];
            r0[band->cols + 1] = c[3];
        }
        if (rd.consumed > nbits)
            return 0;
    }
    if (rd.consumed != nbits)
        return 0;
    const uint32_t pad = (8u - nbits % 8u) % 8u;
    return !pad || pcwt_br_get(&rd, pad) == 0;
}

pcwt_status pcwt_ec_payload_decode(pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc,
                                   const uint8_t *src, size_t size, char *err, size_t err_size)
{
    size_t pos = 0;
    uint64_t gi = 0;
    group_models gm;
    for (uint32_t b = 0; b < p->band_count; b++) {
        pcwt_band *band = &p->band[b];
        for (uint32_t gx = 0; gx < band->mrows; gx += gr) {
            for (uint32_t gy = 0; gy < band->mcols; gy += gc, gi++) {
                group_span g = {gx, gy, gx + gr < band->mrows ? gx + gr : band->mrows,
                                gy + gc < band->mcols ? gy + gc : band->mcols};
                uint32_t h;
                if (!leb128_get(src, size, &pos, &h)) {
                    pcwt_set_error(err, err_size, "group %llu: bad or missing length",
                                   (unsigned long long)gi);
                    return pos >= size ? PCWT_ERR_TRUNCATED : PCWT_ERR_CORRUPT;
                }
                int ok;
                if (h & 1u) {
                    const uint32_t nbits = h >> 1;
                    const size_t nbytes = (nbits + 7u) / 8u;
                    if (nbytes > size - pos) {
                        pcwt_set_error(err, err_size, "group %llu declares %u bits, beyond the payload",
                                       (unsigned long long)gi, nbits);
                        return PCWT_ERR_CORRUPT;
                    }
                    ok = decode_group_raw(p, b, qmax, &g, src + pos, nbits);
                    pos += nbytes;
                } else {
                    const size_t alen = h >> 1;
                    uint32_t rlen;
                    if (!leb128_get(src, size, &pos, &rlen) || alen > size - pos ||
                        rlen > size - pos - alen) {
                        pcwt_set_error(err, err_size, "group %llu: stream lengths beyond the payload",
                                       (unsigned long long)gi);
                        return PCWT_ERR_CORRUPT;
                    }
                    /* exact: m is the largest QL of the element's own coefficients (LL, level
                     * 1); two instances of the decoder, one per case */
                    ok = b == 0 || band->level == 1
                             ? decode_group_entropy(p, b, qmax, &g, &gm, src + pos, alen,
                                                    src + pos + alen, rlen, 1)
                             : decode_group_entropy(p, b, qmax, &g, &gm, src + pos, alen,
                                                    src + pos + alen, rlen, 0);
                    pos += alen + rlen;
                }
                if (!ok) {
                    pcwt_set_error(err, err_size, "group %llu does not decode consistently",
                                   (unsigned long long)gi);
                    return PCWT_ERR_CORRUPT;
                }
            }
        }
        if (b + 1 == (p->plan.levels ? 4u : 1u)) {
            int top = -1;
            for (uint32_t t = 0; t <= b; t++) {
                const size_t n = (size_t)p->band[t].mrows * p->band[t].mcols;
                for (size_t k = 0; k < n; k++)
                    if (p->band[t].mqd[k] > top)
                        top = p->band[t].mqd[k];
            }
            if (top != qmax) {
                pcwt_set_error(err, err_size, "Qmax %d does not match the top-level MQDs (%d)",
                               qmax, top);
                return PCWT_ERR_CORRUPT;
            }
        }
    }
    if (pos != size) {
        pcwt_set_error(err, err_size, "payload has %llu bytes after its last group",
                       (unsigned long long)(size - pos));
        return PCWT_ERR_CORRUPT;
    }
    return PCWT_OK;
}
