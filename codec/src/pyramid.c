/* pyramid.c - the memory of one plane's decomposition: every band of a plan carved out of one
 * allocation, reused from frame to frame and grown only when a frame needs more. */
#include "pyramid.h"

#include <stdlib.h>
#include <string.h>

/* The int32s and MQD bytes of a plan's pyramid, and the transform scratch's int32s among them:
 * the forward transform's holds a level's two halves, the inverse's (decode) six rows of the
 * widest level (dwt53.c: three for 5/3, six for level 1's 5/11-C). */
static void pyramid_sizes(const pcwt_plan *plan, int decode, size_t *ints, size_t *bytes8,
                          size_t *tmp)
{
    const size_t img = (size_t)pcwt_even_up(plan->rows) * pcwt_even_up(plan->cols);
    size_t n = img, b8 = 0, t_max = 0;
    for (uint32_t l = 0; l < plan->levels; l++) {
        const pcwt_level_size *s = &plan->lv[l];
        const size_t band = (size_t)s->band_r * s->band_c;
        n += 4 * band; /* HL, LH, HH and this level's LL */
        b8 += 3 * (size_t)s->mqd_r * s->mqd_c;
        const size_t rows_first = 2 * (size_t)s->level_r * s->band_c;
        const size_t columns_first = 2 * (size_t)s->band_r * s->level_c;
        const size_t t = rows_first > columns_first ? rows_first : columns_first;
        if (t > t_max)
            t_max = t;
    }
    b8 += (size_t)(plan->ll_r / 2) * (plan->ll_c / 2);
    if (decode)
        t_max = plan->levels ? 6 * (size_t)plan->lv[0].level_c : 0;
    *ints = n + t_max;
    *bytes8 = b8;
    *tmp = t_max;
}

uint64_t pcwt_pyramid_bytes(const pcwt_plan *plan)
{
    size_t ints, bytes8, tmp;
    pyramid_sizes(plan, 0, &ints, &bytes8, &tmp);
    return (uint64_t)ints * sizeof(int32_t) + bytes8 + 64;
}

uint64_t pcwt_pyramid_decode_bytes(const pcwt_plan *plan)
{
    size_t ints, bytes8, tmp;
    pyramid_sizes(plan, 1, &ints, &bytes8, &tmp);
    return (uint64_t)ints * sizeof(int32_t) + bytes8 + 64;
}

/* Carves every buffer of the pyramid out of one allocation, grown only when needed. */
static pcwt_status prepare(pcwt_pyramid *p, const pcwt_plan *plan, int decode)
{
    const uint32_t L = plan->levels;
    const size_t img = (size_t)pcwt_even_up(plan->rows) * pcwt_even_up(plan->cols);
    size_t ints, bytes8, tmp;
    pyramid_sizes(plan, decode, &ints, &bytes8, &tmp);
    const size_t need = ints * sizeof(int32_t) + bytes8 + 64;
    if (need > p->mem_size) {
        void *m = malloc(need);
        if (!m)
            return PCWT_ERR_OUT_OF_MEMORY;
        free(p->mem);
        p->mem = m;
        p->mem_size = need;
    }
    p->plan = *plan;
    int32_t *ip = (int32_t *)p->mem;
    int8_t *bp = (int8_t *)(ip + ints);
    p->image = ip;
    ip += img;
    p->tmp = ip;
    ip += tmp;
    p->band_count = 1 + 3 * L;
    for (uint32_t l = 1; l <= L; l++) {
        const pcwt_level_size *s = &plan->lv[l - 1];
        const size_t band = (size_t)s->band_r * s->band_c;
        for (uint32_t o = 0; o < 3; o++) {
            pcwt_band *b = &p->band[pcwt_band_index(L, l, o)];
            b->coef = ip;
            ip += band;
            b->rows = s->band_r;
            b->cols = s->band_c;
            b->mrows = s->mqd_r;
            b->mcols = s->mqd_c;
            b->mqd = bp;
            bp += (size_t)s->mqd_r * s->mqd_c;
            b->level = l;
        }
        p->ll[l - 1] = ip;
        ip += band;
    }
    pcwt_band *ll = &p->band[0];
    ll->coef = L ? p->ll[L - 1] : p->image;
    ll->rows = plan->ll_r;
    ll->cols = plan->ll_c;
    ll->mrows = plan->ll_r / 2;
    ll->mcols = plan->ll_c / 2;
    ll->mqd = bp;
    ll->level = L;
    return PCWT_OK;
}

pcwt_status pcwt_pyramid_prepare(pcwt_pyramid *p, const pcwt_plan *plan)
{
    return prepare(p, plan, 0);
}

pcwt_status pcwt_pyramid_prepare_decode(pcwt_pyramid *p, const pcwt_plan *plan)
{
    return prepare(p, plan, 1);
}

void pcwt_pyramid_free(pcwt_pyramid *p)
{
    free(p->mem);
    memset(p, 0, sizeof *p);
}
