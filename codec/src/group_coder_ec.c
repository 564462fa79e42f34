/* group_coder_ec.c - element and group coding of one plane, entropy profile (profile 1,
 * docs/FORMAT.md Sec. 5): the walk over a plane's groups and their records. Same bands, groups,
 * MQDs and references as the baseline; each group is coded on its own (models reset at its start,
 * ec_group_coder.h, shared with the GPU twin), so groups decode in parallel exactly as in the
 * baseline. A group whose entropy record would be larger than its baseline bit string is stored as
 * that bit string (raw mode), so a plane is never larger than in the baseline profile. */
#include "ec_group_coder.h"
#include "group_coder.h"
#include "group_coder_ec.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* The view of band b that the group coder reads. */
static inline pcwt_ec_band ec_band(const pcwt_pyramid *p, uint32_t b, int qmax, int low)
{
    const pcwt_band *band = &p->band[b];
    const pcwt_band *parent = pcwt_band_is_top(p, b) ? NULL : &p->band[b - 3];
    pcwt_ec_band v = {band->coef, band->mqd, parent ? parent->mqd : NULL, band->cols, band->mcols,
                      parent ? parent->mcols : 0, qmax, pcwt_ec_class(b == 0, band->level),
                      b == 0 || band->level == 1, low};
    return v;
}

/* The group coders, one copy for each value of the plane's modelled bits (pcwt_ec_band.low), so
 * that each copy knows them. Separate functions rather than one with a branch: in one function
 * holding several copies GCC 12 stops inlining the range coder's calls (pcwt_rc_encode,
 * pcwt_rc_decode_flat and pcwt_ec_raw_get went out of line). The encoders are flattened: even
 * alone GCC 12 left pcwt_rc_encode out of line at the mantissa, second-bit and low-bit bins. */
#if defined(__GNUC__)
#define EC_FLATTEN __attribute__((flatten))
#else
#define EC_FLATTEN
#endif
#define EC_GROUP_CODERS(L)                                                                         \
    static EC_FLATTEN uint64_t encode_group_##L(const pcwt_ec_band *v, const pcwt_ec_span *g,     \
                                     const uint16_t *init, pcwt_bit_model *m, pcwt_rc_enc *rc,     \
                                     pcwt_bitwriter *raw)                                          \
    {                                                                                              \
        pcwt_ec_band b = *v;                                                                       \
        b.low = L;                                                                                 \
        return pcwt_ec_encode_group(&b, g, init, m, 1, rc, raw);                                   \
    }                                                                                              \
    static int decode_group_##L(const pcwt_ec_band *v, const pcwt_ec_span *g,                     \
                                const uint16_t *init, pcwt_bit_model *m, const uint8_t *a,         \
                                size_t alen, const uint8_t *rs, size_t rlen)                       \
    {                                                                                              \
        pcwt_ec_band b = *v;                                                                       \
        b.low = L;                                                                                 \
        return pcwt_ec_decode_group(&b, g, init, m, 1, a, alen, rs, rlen);                         \
    }
EC_GROUP_CODERS(0)
EC_GROUP_CODERS(1)
EC_GROUP_CODERS(2)
EC_GROUP_CODERS(3)

typedef uint64_t (*ec_group_encoder)(const pcwt_ec_band *, const pcwt_ec_span *, const uint16_t *,
                                     pcwt_bit_model *, pcwt_rc_enc *, pcwt_bitwriter *);
typedef int (*ec_group_decoder)(const pcwt_ec_band *, const pcwt_ec_span *, const uint16_t *,
                                pcwt_bit_model *, const uint8_t *, size_t, const uint8_t *, size_t);
static const ec_group_encoder ec_encoders[4] = {encode_group_0, encode_group_1, encode_group_2,
                                                encode_group_3};
static const ec_group_decoder ec_decoders[4] = {decode_group_0, decode_group_1, decode_group_2,
                                                decode_group_3};

/* ---- the low-bit decision ------------------------------------------------------------------- */

/* pcwt_ec_low_tally of the magnitudes of n coefficients into 32-bit counts, without its branch
 * (taken or not at random on high-band coefficients), so that the loop vectorises. */
static void low_tally_row(const int32_t *c, uint32_t n, uint32_t cnt[3], uint32_t ones[3])
{
    uint32_t n0 = 0, o0 = 0, n1 = 0, o1 = 0, n2 = 0, o2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t a = pcwt_magnitude(c[i]);
        const uint32_t ge8 = a >= 8, b1 = (a >> 1) & 1u, b0 = a & 1u;
        const uint32_t with1 = (a >= 4) & b1, with0 = (a >= 4) & (b1 ^ 1u); /* bit 0's models */
        n0 += ge8;
        o0 += ge8 & b1;
        n1 += with0;
        o1 += with0 & b0;
        n2 += with1;
        o2 += with1 & b0;
    }
    cnt[0] += n0;
    ones[0] += o0;
    cnt[1] += n1;
    ones[1] += o1;
    cnt[2] += n2;
    ones[2] += o2;
}

void pcwt_ec_low_stats_of(const pcwt_pyramid *p, pcwt_ec_low_stats *s)
{
    memset(s, 0, sizeof *s);
    for (uint32_t b = 0; b < p->band_count; b++) {
        const pcwt_band *band = &p->band[b];
        for (uint32_t x = 0; x < band->mrows; x += PCWT_EC_LOW_ROW_STEP) {
            /* an element row's two coefficient rows; 32-bit counts (at most 2^18 of them) */
            uint32_t n[3] = {0, 0, 0}, ones[3] = {0, 0, 0};
            low_tally_row(band->coef + (size_t)(2 * x) * band->cols, 2 * band->cols, n, ones);
            for (int k = 0; k < 3; k++) {
                s->n[k] += n[k];
                s->ones[k] += ones[k];
            }
        }
    }
}

int pcwt_ec_low_bits_wanted(const pcwt_pyramid *p)
{
    pcwt_ec_low_stats s;
    pcwt_ec_low_stats_of(p, &s);
    return pcwt_ec_low_worth(&s);
}

static inline pcwt_ec_span span_of(const pcwt_band *band, uint32_t gx, uint32_t gy,
                                   uint32_t group_rows, uint32_t group_cols)
{
    pcwt_ec_span g = {gx, gy, gx + group_rows < band->mrows ? gx + group_rows : band->mrows,
                      gy + group_cols < band->mcols ? gy + group_cols : band->mcols};
    return g;
}

/* ---- encoder -------------------------------------------------------------------------------- */

pcwt_status pcwt_ec_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t group_rows,
                                   uint32_t group_cols, int low, uint8_t *dst, size_t cap, size_t *written)
{
    /* Scratch for the two streams of the largest possible group of the plane. */
    const uint64_t per_element = qmax >= 0 ? 4u * (uint64_t)qmax + 9u : 1u;
    const size_t scap = (size_t)pcwt_ec_scratch((uint64_t)group_rows * group_cols * per_element);
    uint8_t *sa = malloc(2 * scap);
    if (!sa)
        return PCWT_ERR_OUT_OF_MEMORY;
    uint8_t *sr = sa + scap;
    pcwt_bit_model models[PCWT_EC_ALL];
    size_t off = 0;
    pcwt_status st = PCWT_OK;
    for (uint32_t b = 0; b < p->band_count && st == PCWT_OK; b++) {
        const pcwt_band *band = &p->band[b];
        const pcwt_ec_band v = ec_band(p, b, qmax, low);
        const uint16_t *init = pcwt_ec_init_p[v.cls];
        for (uint32_t gx = 0; gx < band->mrows && st == PCWT_OK; gx += group_rows) {
            for (uint32_t gy = 0; gy < band->mcols; gy += group_cols) {
                const pcwt_ec_span g = span_of(band, gx, gy, group_rows, group_cols);
                pcwt_rc_enc rc;
                pcwt_rc_enc_init(&rc, sa, scap);
                pcwt_bitwriter bw;
                pcwt_bw_init(&bw, sr);
                const uint64_t raw_bits = ec_encoders[low & 3](&v, &g, init, models, &rc, &bw);
                const size_t alen = pcwt_rc_enc_finish(&rc, sa);
                const size_t rlen = (size_t)(pcwt_bw_flush(&bw) - sr);
                const pcwt_ec_record rec = pcwt_ec_record_choose(raw_bits, alen, rlen, rc.overflow);
                const uint64_t need = pcwt_ec_record_bytes(&rec);
                if (need > cap - off) {
                    st = PCWT_ERR_BUFFER_TOO_SMALL;
                    break;
                }
                uint8_t *d = pcwt_ec_record_put_head(dst + off, &rec);
                if (rec.entropy) {
                    memcpy(d, sa, alen);
                    memcpy(d + alen, sr, rlen);
                } else if (rec.bits) { /* most raw groups are empty: all their MQDs -1 under -1 */
                    pcwt_bitwriter w;
                    pcwt_bw_init(&w, d);
                    for (uint32_t x = g.gx; x < g.xe; x++) {
                        for (uint32_t y = g.gy; y < g.ye; y++) {
                            const int mq = band->mqd[(size_t)x * band->mcols + y];
                            int32_t c[4] = {0, 0, 0, 0}; /* read only where coded: the bands of */
                            if (mq >= 0) {               /* empty groups are not in the cache */
                                const int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
                                c[0] = r0[0];
                                c[1] = r0[1];
                                c[2] = r0[band->cols];
                                c[3] = r0[band->cols + 1];
                            }
                            pcwt_element_encode(&w, pcwt_ec_ref(&v, x, y), mq, c);
                        }
                    }
                    pcwt_bw_flush(&w);
                }
                off += (size_t)need;
            }
        }
    }
    free(sa);
    *written = off;
    return st;
}

/* ---- decoder -------------------------------------------------------------------------------- */

/* Decodes one raw-mode group (baseline element codes); returns 0 on an inconsistency. */
static int decode_group_raw(const pcwt_ec_band *v, const pcwt_ec_span *g, const uint8_t *src,
                            uint32_t nbits)
{
    pcwt_bitreader rd;
    pcwt_br_init(&rd, src, (nbits + 7u) / 8u);
    for (uint32_t x = g->gx; x < g->xe; x++) {
        for (uint32_t y = g->gy; y < g->ye; y++) {
            int32_t c[4];
            const int m = pcwt_element_decode(&rd, pcwt_ec_ref(v, x, y), c);
            if (m < -1 || (v->exact && m >= 0 && !pcwt_element_reaches(c, m)))
                return 0; /* an entropy-mode group implies the top level where exact */
            v->mqd[(size_t)x * v->mcols + y] = (int8_t)m;
            int32_t *r0 = v->coef + (size_t)(2 * x) * v->cols + 2 * y;
            r0[0] = c[0];
            r0[1] = c[1];
            r0[v->cols] = c[2];
            r0[v->cols + 1] = c[3];
        }
        if (rd.consumed > nbits)
            return 0;
    }
    if (rd.consumed != nbits)
        return 0;
    const uint32_t pad = (8u - nbits % 8u) % 8u;
    return !pad || pcwt_br_get(&rd, pad) == 0;
}

pcwt_status pcwt_ec_payload_decode(pcwt_pyramid *p, int qmax, uint32_t group_rows,
                                   uint32_t group_cols, int low, const uint8_t *src, size_t size,
                                   char *err, size_t err_size)
{
    size_t pos = 0;
    uint64_t gi = 0;
    pcwt_bit_model models[PCWT_EC_ALL];
    for (uint32_t b = 0; b < p->band_count; b++) {
        const pcwt_band *band = &p->band[b];
        const pcwt_ec_band v = ec_band(p, b, qmax, low);
        const uint16_t *init = pcwt_ec_init_p[v.cls];
        for (uint32_t gx = 0; gx < band->mrows; gx += group_rows) {
            for (uint32_t gy = 0; gy < band->mcols; gy += group_cols, gi++) {
                const pcwt_ec_span g = span_of(band, gx, gy, group_rows, group_cols);
                pcwt_ec_record rec;
                switch (pcwt_ec_record_read(src + pos, size - pos, &rec)) {
                case PCWT_EC_RECORD_BAD_LENGTH:
                    pcwt_set_error(err, err_size, "group %llu: bad or missing length",
                                   (unsigned long long)gi);
                    return pos + rec.head >= size ? PCWT_ERR_TRUNCATED : PCWT_ERR_CORRUPT;
                case PCWT_EC_RECORD_BITS_BEYOND:
                    pcwt_set_error(err, err_size, "group %llu declares %u bits, beyond the payload",
                                   (unsigned long long)gi, (unsigned)rec.bits);
                    return PCWT_ERR_CORRUPT;
                case PCWT_EC_RECORD_STREAMS_BEYOND:
                    pcwt_set_error(err, err_size, "group %llu: stream lengths beyond the payload",
                                   (unsigned long long)gi);
                    return PCWT_ERR_CORRUPT;
                default:
                    break;
                }
                const uint8_t *payload = src + pos + rec.head;
                const int ok = rec.entropy
                                   ? ec_decoders[low & 3](&v, &g, init, models, payload,
                                                          rec.alen, payload + rec.alen, rec.rlen)
                                   : decode_group_raw(&v, &g, payload, (uint32_t)rec.bits);
                pos += pcwt_ec_record_bytes(&rec);
                if (!ok) {
                    pcwt_set_error(err, err_size, "group %llu does not decode consistently",
                                   (unsigned long long)gi);
                    return PCWT_ERR_CORRUPT;
                }
            }
        }
        const pcwt_status st = pcwt_check_band_decoded(p, b, qmax, err, err_size);
        if (st != PCWT_OK)
            return st;
    }
    return pcwt_check_payload_end(pos, size, err, err_size);
}
