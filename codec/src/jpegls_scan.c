/* jpegls_scan.c - the line loops of a JPEG-LS scan, with the border rules of T.87 A.2.1 / CharLS:
 * the line above the first line is all zeros; at column 0, Ra = Rb and Rc is the Ra that column 0
 * of the previous line had (the sample two lines up); at the last column, Rd = Rb. A restart
 * interval ends with the end-of-segment padding and an RSTm marker; then the contexts and
 * RUNindex are reset and the line above counts as all zeros again. */
#include "jpegls_scan.h"

#include <string.h>

#include "jpegls_markers.h"
#include "jpegls_run.h"

void jls_source_init(jls_source *src, const pcwt_image_desc *d, const void *samples)
{
    src->base = (const uint8_t *)samples;
    src->word_bytes = d->bits_allocated / 8u;
    src->mask = (uint32_t)((1u << d->bits_stored) - 1u);
    src->width = d->width;
    src->height = d->height;
    for (uint32_t c = 0; c < 3; c++) {
        if (d->components > 1 && d->planar)
            src->first[c] = (size_t)c * d->width * d->height;
        else
            src->first[c] = c < d->components ? c : 0;
    }
    src->step = (d->components > 1 && !d->planar) ? d->components : 1u;
}

static void load_row(const jls_source *src, uint32_t comp, uint32_t row, int32_t *out)
{
    const size_t step = src->step;
    size_t k = src->first[comp] + (size_t)row * src->width * step;
    const uint32_t mask = src->mask;
    if (src->word_bytes == 1) {
        const uint8_t *s = src->base;
        for (uint32_t x = 0; x < src->width; x++, k += step)
            out[x] = (int32_t)(s[k] & mask);
    } else {
        for (uint32_t x = 0; x < src->width; x++, k += step) {
            uint16_t w;
            memcpy(&w, src->base + 2u * k, sizeof w);
            out[x] = (int32_t)(w & mask);
        }
    }
}

/* One line of one component (interleave none or line). */
static void code_line(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                      const int32_t *prev, const int32_t *cur, int32_t width, int32_t *run_index)
{
    int32_t i = 0;
    while (i < width) {
        const int32_t ra = cur[i - 1], rb = prev[i], rc = prev[i - 1], rd = prev[i + 1];
        const int32_t qs = jls_context_id(p, ra, rb, rc, rd);
        if (qs != 0) {
            jls_regular_sample(p, cx, bw, qs, jls_med(ra, rb, rc), cur[i]);
            i++;
        } else {
            i += jls_run_mode(p, cx, bw, prev, cur, i, width, run_index);
        }
    }
}

/* One line of three sample-interleaved components: run mode only when all three contexts are 0;
 * otherwise every component is coded in regular mode, context 0 included. */
static void code_line_triplet(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                              const int32_t *const prev[3], const int32_t *const cur[3],
                              int32_t width, int32_t *run_index)
{
    int32_t i = 0;
    while (i < width) {
        int32_t qs[3];
        for (int c = 0; c < 3; c++)
            qs[c] = jls_context_id(p, cur[c][i - 1], prev[c][i], prev[c][i - 1], prev[c][i + 1]);
        if (qs[0] == 0 && qs[1] == 0 && qs[2] == 0) {
            i += jls_run_mode_triplet(p, cx, bw, prev, cur, i, width, run_index);
            continue;
        }
        for (int c = 0; c < 3; c++)
            jls_regular_sample(p, cx, bw, qs[c], jls_med(cur[c][i - 1], prev[c][i], prev[c][i - 1]),
                               cur[c][i]);
        i++;
    }
}

int jls_encode_scan(const jls_scan_job *job, jls_contexts *cx, int32_t *lines, uint8_t *dst,
                    size_t cap, size_t *pos)
{
    const jls_params *p = job->p;
    const jls_source *src = job->src;
    const uint32_t comps = job->comps;
    const uint32_t w = src->width;
    const size_t stride = (size_t)w + 2u;
    const size_t line_values = jls_scan_line_values(comps, w);
    int32_t *prev[3] = {NULL, NULL, NULL}, *cur[3] = {NULL, NULL, NULL};
    for (uint32_t c = 0; c < comps; c++) {
        prev[c] = lines + (2u * c) * stride + 1u; /* column -1 is at index -1 */
        cur[c] = lines + (2u * c + 1u) * stride + 1u;
    }
    int32_t run_index[3] = {0, 0, 0};
    jls_bitwriter bw;
    jls_bw_init(&bw, dst, cap, *pos);
    jls_contexts_reset(cx, p);
    memset(lines, 0, line_values * sizeof *lines);
    uint32_t rst = 0;

    for (uint32_t y = 0; y < src->height; y++) {
        if (job->restart && y > 0 && y % job->restart == 0) {
            jls_bw_flush(&bw);
            jls_bw_emit(&bw, 0xFFu);
            jls_bw_emit(&bw, JLS_MARKER_RST0 + rst);
            rst = (rst + 1u) & 7u;
            jls_contexts_reset(cx, p);
            run_index[0] = run_index[1] = run_index[2] = 0;
            memset(lines, 0, line_values * sizeof *lines);
        }
        for (uint32_t c = 0; c < comps; c++) {
            int32_t *t = prev[c];
            prev[c] = cur[c];
            cur[c] = t;
            load_row(src, job->first_comp + c, y, cur[c]);
            prev[c][w] = prev[c][w - 1];
            cur[c][-1] = prev[c][0];
        }
        if (job->interleave == 2) {
            const int32_t *const cp[3] = {prev[0], prev[1], prev[2]};
            const int32_t *const cc[3] = {cur[0], cur[1], cur[2]};
            code_line_triplet(p, cx, &bw, cp, cc, (int32_t)w, &run_index[0]);
        } else {
            for (uint32_t c = 0; c < comps; c++)
                code_line(p, cx, &bw, prev[c], cur[c], (int32_t)w, &run_index[c]);
        }
        if (jls_bw_overflow(&bw))
            return 0;
    }
    jls_bw_flush(&bw);
    *pos = bw.pos;
    return !jls_bw_overflow(&bw);
}
