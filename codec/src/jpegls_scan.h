/* jpegls_scan.h - codes one JPEG-LS scan (T.87, annex A and the scan structure of C.2.3):
 * the line loop over one component (interleave none), or over three components line by line
 * (interleave line) or pixel by pixel (interleave sample), with optional restart intervals. */
#ifndef PCWT_JPEGLS_SCAN_H
#define PCWT_JPEGLS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "jpegls_context.h"
#include "pcwt.h"

/* Where the samples of each component are: word (comp, row, column) is at word index
 * first[comp] + (row * width + column) * step. Words are masked to the sample precision. */
typedef struct jls_source {
    const uint8_t *base;
    uint32_t word_bytes; /* 1 or 2, host byte order */
    uint32_t mask;       /* (1 << bits_stored) - 1 */
    uint32_t width, height;
    size_t first[3];
    size_t step;
} jls_source;

void jls_source_init(jls_source *src, const pcwt_image_desc *d, const void *samples);

typedef struct jls_scan_job {
    const jls_params *p;
    const jls_source *src;
    uint32_t first_comp; /* the scan codes components first_comp .. first_comp + comps - 1 */
    uint32_t comps;      /* 1 (interleave none) or 3 */
    uint32_t interleave; /* 0 none, 1 line, 2 sample */
    uint32_t restart;    /* lines per restart interval; 0: no restart markers */
} jls_scan_job;

/* Scratch for jls_encode_scan: line buffers of comps * 2 * (width + 2) values. */
static inline size_t jls_scan_line_values(uint32_t comps, uint32_t width)
{
    return (size_t)comps * 2u * ((size_t)width + 2u);
}

/* Writes the entropy-coded data of the scan (and its RSTm markers) at dst[*pos], advancing *pos.
 * Returns 0 when it does not fit in cap bytes: nothing is then stored at or past dst[cap]. */
int jls_encode_scan(const jls_scan_job *job, jls_contexts *cx, int32_t *lines, uint8_t *dst,
                    size_t cap, size_t *pos);

#endif /* PCWT_JPEGLS_SCAN_H */
