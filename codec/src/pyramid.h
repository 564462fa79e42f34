/* pyramid.h - the decomposition of one plane in memory: its bands of coefficients and MQDs in
 * coding order, and the working memory of the transform (pyramid.c). */
#ifndef PCWT_PYRAMID_H
#define PCWT_PYRAMID_H

#include "plan.h"

#include <stddef.h>
#include <stdint.h>

/* A band of coefficients with its MQD band. Orientation index o: 0 = HL, 1 = LH, 2 = HH. */
typedef struct pcwt_band {
    int32_t *coef; /* rows x cols, dense */
    int8_t *mqd;   /* mrows x mcols, dense */
    uint32_t rows, cols, mrows, mcols;
    uint32_t level; /* 1 = finest; the LL band has the top level (0 when no transform) */
} pcwt_band;

/* The whole decomposition of one plane, bands indexed in coding order:
 * 0 = LL, 1..3 = HL, LH, HH of the top level, then HL, LH, HH of each finer level. */
typedef struct pcwt_pyramid {
    pcwt_plan plan;
    uint32_t band_count;
    pcwt_band band[PCWT_MAX_BANDS];
    int32_t *image;                      /* even_up(rows) x even_up(cols), zero padded */
    int32_t *ll[PCWT_MAX_LEVELS + 1];    /* ll[l-1]: LL output of level l (ll[levels-1] is coded) */
    int32_t *tmp;                        /* transform scratch */
    void *mem;
    size_t mem_size;
} pcwt_pyramid;

static inline uint32_t pcwt_band_index(uint32_t levels, uint32_t level, uint32_t orient)
{
    return 1u + 3u * (levels - level) + orient;
}

/* Bands of the top level (their reference is Qmax): LL, HL, LH, HH, or LL alone without a
 * transform. */
static inline int pcwt_band_is_top(const pcwt_pyramid *p, uint32_t b)
{
    return p->plan.levels ? b < 4 : b == 0;
}

/* (Re)allocates for a plan, reusing memory. */
pcwt_status pcwt_pyramid_prepare(pcwt_pyramid *p, const pcwt_plan *plan);
void pcwt_pyramid_free(pcwt_pyramid *p);
/* The bytes pcwt_pyramid_prepare allocates for a plan. */
uint64_t pcwt_pyramid_bytes(const pcwt_plan *plan);
/* For decoding only: the inverse transform's scratch is a few rows, not a level's halves (a
 * pyramid prepared so cannot run the forward transform). */
pcwt_status pcwt_pyramid_prepare_decode(pcwt_pyramid *p, const pcwt_plan *plan);
uint64_t pcwt_pyramid_decode_bytes(const pcwt_plan *plan);

#endif /* PCWT_PYRAMID_H */
