/* group_coder.c - group coding of one plane, baseline profile (Ao 2014, Sec. 3.5).
 * Bands in coding order (LL, HL, LH, HH of the top level, then HL, LH, HH of each finer level);
 * each band's MQD grid tiled into groups of group_rows x group_cols elements in raster order
 * (edge groups hold only the elements that exist); per group a little-endian u32 bit length,
 * then the element codes packed MSB first and padded with zero bits to a whole byte. */
#include "element.h"
#include "group_coder.h"
#include "status.h"

#include <string.h>

/* Reference of element (x,y) of band b: Qmax on the top level, else the parent's MQD. */
static inline int reference(const pcwt_pyramid *p, uint32_t b, int qmax, uint32_t x, uint32_t y)
{
    if (pcwt_band_is_top(p, b))
        return qmax;
    const pcwt_band *parent = &p->band[b - 3];
    return parent->mqd[(size_t)(x / 2) * parent->mcols + y / 2];
}

static inline uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint64_t pcwt_group_count(const pcwt_pyramid *p, uint32_t group_rows, uint32_t group_cols)
{
    uint64_t n = 0;
    for (uint32_t b = 0; b < p->band_count; b++)
        n += div_up(p->band[b].mrows, group_rows) * div_up(p->band[b].mcols, group_cols);
    return n;
}

static uint64_t group_bits(const pcwt_pyramid *p, uint32_t b, int qmax, uint32_t gx, uint32_t gy,
                           uint32_t group_rows, uint32_t group_cols)
{
    const pcwt_band *band = &p->band[b];
    const uint32_t xe = gx + group_rows < band->mrows ? gx + group_rows : band->mrows;
    const uint32_t ye = gy + group_cols < band->mcols ? gy + group_cols : band->mcols;
    uint64_t bits = 0;
    for (uint32_t x = gx; x < xe; x++)
        for (uint32_t y = gy; y < ye; y++)
            bits += pcwt_element_bits(reference(p, b, qmax, x, y),
                                      band->mqd[(size_t)x * band->mcols + y]);
    return bits;
}

uint64_t pcwt_payload_size(const pcwt_pyramid *p, int qmax, uint32_t group_rows,
                           uint32_t group_cols)
{
    uint64_t bytes = 0;
    for (uint32_t b = 0; b < p->band_count; b++) {
        const pcwt_band *band = &p->band[b];
        for (uint32_t gx = 0; gx < band->mrows; gx += group_rows)
            for (uint32_t gy = 0; gy < band->mcols; gy += group_cols)
                bytes += 4 + div_up(group_bits(p, b, qmax, gx, gy, group_rows, group_cols), 8);
    }
    return bytes;
}

uint64_t pcwt_payload_max_size(const pcwt_plan *plan, int qmax, uint32_t group_rows,
                               uint32_t group_cols)
{
    /* Worst element: m = r = qmax, 4 * qmax + 9 bits; every group may add 7 padding bits. */
    const uint64_t per_element = qmax >= 0 ? 4u * (uint64_t)qmax + 9u : 0u;
    uint64_t elements = (uint64_t)(plan->ll_r / 2) * (plan->ll_c / 2);
    uint64_t groups = div_up(plan->ll_r / 2, group_rows) * div_up(plan->ll_c / 2, group_cols);
    for (uint32_t l = 0; l < plan->levels; l++) {
        const pcwt_level_size *s = &plan->lv[l];
        elements += 3u * (uint64_t)s->mqd_r * s->mqd_c;
        groups += 3u * div_up(s->mqd_r, group_rows) * div_up(s->mqd_c, group_cols);
    }
    return groups * 5u + div_up(elements * per_element, 8);
}

static inline void put_le32(uint8_t *d, uint32_t v)
{
    d[0] = (uint8_t)v;
    d[1] = (uint8_t)(v >> 8);
    d[2] = (uint8_t)(v >> 16);
    d[3] = (uint8_t)(v >> 24);
}

static inline void element_coefs(const pcwt_band *band, uint32_t x, uint32_t y, int32_t c[4])
{
    const int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
    const int32_t *r1 = r0 + band->cols;
    c[0] = r0[0];
    c[1] = r0[1];
    c[2] = r1[0];
    c[3] = r1[1];
}

void pcwt_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t group_rows, uint32_t group_cols,
                         uint8_t *dst)
{
    for (uint32_t b = 0; b < p->band_count; b++) {
        const pcwt_band *band = &p->band[b];
        for (uint32_t gx = 0; gx < band->mrows; gx += group_rows) {
            const uint32_t xe = gx + group_rows < band->mrows ? gx + group_rows : band->mrows;
            for (uint32_t gy = 0; gy < band->mcols; gy += group_cols) {
                const uint32_t ye = gy + group_cols < band->mcols ? gy + group_cols : band->mcols;
                uint8_t *len = dst;
                pcwt_bitwriter w;
                pcwt_bw_init(&w, dst + 4);
                for (uint32_t x = gx; x < xe; x++) {
                    for (uint32_t y = gy; y < ye; y++) {
                        int32_t c[4];
                        element_coefs(band, x, y, c);
                        pcwt_element_encode(&w, reference(p, b, qmax, x, y),
                                            band->mqd[(size_t)x * band->mcols + y], c);
                    }
                }
                /* bits written: whole bytes so far plus the pending ones */
                const uint64_t bits = (uint64_t)(w.p - (dst + 4)) * 8u + w.n;
                dst = pcwt_bw_flush(&w);
                put_le32(len, (uint32_t)bits);
            }
        }
    }
}

/* The MQDs must be what the encoder computes (FORMAT.md Sec. 4.1): the largest level of each
 * element's coefficients and, in a band with children, of its children's MQDs. The codes only
 * bound an MQD from above, so a stream may declare one higher: lossless still, but no stream this
 * format describes, and the GPU group walk sizes its work from the MQDs. The decoders check an
 * element without children as they decode it (pcwt_element_reaches); this checks the elements of
 * band bi against child band bi + 3, once that is decoded, reading an element's own coefficients
 * only where no child reaches its MQD. */
static pcwt_status check_mqd_parents(const pcwt_pyramid *p, uint32_t bi, char *err, size_t err_size)
{
    const pcwt_band *band = &p->band[bi], *child = &p->band[bi + 3];
    for (uint32_t x = 0; x < band->mrows; x++) {
        for (uint32_t y = 0; y < band->mcols; y++) {
            const int m = band->mqd[(size_t)x * band->mcols + y];
            if (m < 0)
                continue; /* all four coefficients 0, and the children's MQDs -1, by the codes */
            /* children outside the finer band (lazy even padding) do not count, as in mqd.c */
            int top = -1;
            for (uint32_t xx = 2 * x; xx < 2 * x + 2 && xx < child->mrows; xx++)
                for (uint32_t yy = 2 * y; yy < 2 * y + 2 && yy < child->mcols; yy++) {
                    const int c = child->mqd[(size_t)xx * child->mcols + yy];
                    top = c > top ? c : top;
                }
            if (top == m)
                continue;
            const int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
            const int32_t c[4] = {r0[0], r0[1], r0[band->cols], r0[band->cols + 1]};
            if (top > m || !pcwt_element_reaches(c, m)) {
                pcwt_set_error(err, err_size, "band %u: MQD %d above its element's largest level",
                               bi, m);
                return PCWT_ERR_CORRUPT;
            }
        }
    }
    return PCWT_OK;
}

pcwt_status pcwt_payload_decode(pcwt_pyramid *p, int qmax, uint32_t group_rows, uint32_t group_cols,
                                const uint8_t *src, size_t size, char *err, size_t err_size)
{
    size_t pos = 0;
    uint64_t group_index = 0;
    for (uint32_t b = 0; b < p->band_count; b++) {
        pcwt_band *band = &p->band[b];
        const int leaf = b == 0 || band->level == 1; /* no children: m is its own largest level */
        memset(band->coef, 0, sizeof(int32_t) * (size_t)band->rows * band->cols);
        for (uint32_t gx = 0; gx < band->mrows; gx += group_rows) {
            const uint32_t xe = gx + group_rows < band->mrows ? gx + group_rows : band->mrows;
            for (uint32_t gy = 0; gy < band->mcols; gy += group_cols, group_index++) {
                const uint32_t ye = gy + group_cols < band->mcols ? gy + group_cols : band->mcols;
                if (size - pos < 4) {
                    pcwt_set_error(err, err_size, "payload ends before group %llu",
                                   (unsigned long long)group_index);
                    return PCWT_ERR_TRUNCATED;
                }
                const uint32_t nbits = (uint32_t)src[pos] | (uint32_t)src[pos + 1] << 8 |
                                       (uint32_t)src[pos + 2] << 16 | (uint32_t)src[pos + 3] << 24;
                pos += 4;
                const size_t nbytes = (size_t)div_up(nbits, 8);
                if (nbytes > size - pos) {
                    pcwt_set_error(err, err_size, "group %llu declares %u bits, beyond the payload",
                                   (unsigned long long)group_index, nbits);
                    return PCWT_ERR_CORRUPT;
                }
                pcwt_bitreader rd;
                pcwt_br_init(&rd, src + pos, nbytes);
                for (uint32_t x = gx; x < xe; x++) {
                    for (uint32_t y = gy; y < ye; y++) {
                        int32_t c[4];
                        const int m = pcwt_element_decode(&rd, reference(p, b, qmax, x, y), c);
                        if (m < -1) {
                            pcwt_set_error(err, err_size, "invalid coefficient code in group %llu",
                                           (unsigned long long)group_index);
                            return PCWT_ERR_CORRUPT;
                        }
                        if (leaf && m >= 0 && !pcwt_element_reaches(c, m)) {
                            pcwt_set_error(err, err_size,
                                           "band %u: MQD %d above its element's largest level", b, m);
                            return PCWT_ERR_CORRUPT;
                        }
                        band->mqd[(size_t)x * band->mcols + y] = (int8_t)m;
                        int32_t *r0 = band->coef + (size_t)(2 * x) * band->cols + 2 * y;
                        int32_t *r1 = r0 + band->cols;
                        r0[0] = c[0];
                        r0[1] = c[1];
                        r1[0] = c[2];
                        r1[1] = c[3];
                    }
                    if (rd.consumed > nbits)
                        break; /* reported below; stops a hostile group from spinning */
                }
                if (rd.consumed != nbits) {
                    pcwt_set_error(err, err_size,
                                   "group %llu: %u bits declared, %llu decoded",
                                   (unsigned long long)group_index, nbits,
                                   (unsigned long long)rd.consumed);
                    return PCWT_ERR_CORRUPT;
                }
                pos += nbytes;
            }
        }
        const pcwt_status st = pcwt_check_band_decoded(p, b, qmax, err, err_size);
        if (st != PCWT_OK)
            return st;
    }
    return pcwt_check_payload_end(pos, size, err, err_size);
}

/* Once the last band of the top level is decoded, Qmax must be the largest top-level MQD, as the
 * encoder computes it. */
static pcwt_status check_top_qmax(const pcwt_pyramid *p, uint32_t b, int qmax, char *err,
                                  size_t err_size)
{
    if (!pcwt_band_is_top(p, b) || b + 1 != (p->plan.levels ? 4u : 1u))
        return PCWT_OK;
    int top = -1;
    for (uint32_t t = 0; t <= b; t++) {
        const size_t n = (size_t)p->band[t].mrows * p->band[t].mcols;
        for (size_t k = 0; k < n; k++)
            if (p->band[t].mqd[k] > top)
                top = p->band[t].mqd[k];
    }
    if (top != qmax) {
        pcwt_set_error(err, err_size, "Qmax %d does not match the top-level MQDs (%d)", qmax, top);
        return PCWT_ERR_CORRUPT;
    }
    return PCWT_OK;
}

pcwt_status pcwt_check_band_decoded(const pcwt_pyramid *p, uint32_t b, int qmax, char *err,
                                    size_t err_size)
{
    pcwt_status st = check_top_qmax(p, b, qmax, err, err_size);
    if (st == PCWT_OK && b != 0 && !pcwt_band_is_top(p, b)) /* the parent band's children are in */
        st = check_mqd_parents(p, b - 3, err, err_size);
    return st;
}

pcwt_status pcwt_check_payload_end(size_t pos, size_t size, char *err, size_t err_size)
{
    if (pos != size) {
        pcwt_set_error(err, err_size, "payload has %llu bytes after its last group",
                       (unsigned long long)(size - pos));
        return PCWT_ERR_CORRUPT;
    }
    return PCWT_OK;
}
