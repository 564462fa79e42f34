/* plan.c - level, band and MQD sizes (Ao 2014, Sec. 3.1 / Fig. 3.2), and the encoder's options
 * resolved for a frame. Sizes are computed per dimension: the level input is even (the image is
 * padded with one zero row/column when odd), each band is roundup_even(level / 2), and the next
 * level's input is the LL band including its zero padding. */
#include "plan.h"

#include "container.h"

#include <string.h>

uint32_t pcwt_plan_max_levels(uint32_t rows, uint32_t cols, uint32_t min_ll)
{
    uint32_t r = pcwt_even_up(rows), c = pcwt_even_up(cols), levels = 0;
    if (min_ll == 0)
        min_ll = 1;
    /* A level runs only while its low band keeps min_ll real samples in both dimensions. */
    while (levels < PCWT_MAX_LEVELS && r / 2 >= min_ll && c / 2 >= min_ll) {
        r = pcwt_even_up(r / 2);
        c = pcwt_even_up(c / 2);
        levels++;
    }
    return levels;
}

void pcwt_plan_make(pcwt_plan *plan, uint32_t rows, uint32_t cols, uint32_t levels)
{
    memset(plan, 0, sizeof *plan);
    plan->rows = rows;
    plan->cols = cols;
    plan->levels = levels;
    uint32_t r = pcwt_even_up(rows), c = pcwt_even_up(cols);
    for (uint32_t l = 0; l < levels; l++) {
        pcwt_level_size *s = &plan->lv[l];
        s->level_r = r;
        s->level_c = c;
        s->band_r = pcwt_even_up(r / 2);
        s->band_c = pcwt_even_up(c / 2);
        s->mqd_r = s->band_r / 2;
        s->mqd_c = s->band_c / 2;
        r = s->band_r;
        c = s->band_c;
    }
    plan->ll_r = r;
    plan->ll_c = c;
}

void pcwt_group_size_wanted(const pcwt_encode_params *p, uint32_t *group_rows, uint32_t *group_cols)
{
    const int entropy = pcwt_profile_ranged(p->profile); /* entropy or compact */
    *group_rows = p->group_rows ? p->group_rows
                  : entropy     ? PCWT_ENTROPY_GROUP_ROWS
                                : PCWT_DEFAULT_GROUP;
    *group_cols = p->group_cols ? p->group_cols
                  : entropy     ? PCWT_ENTROPY_GROUP_COLS
                                : PCWT_DEFAULT_GROUP;
}

/* AUTO in the entropy and compact profiles: the colour transform on RGB and columns lifted first (why:
 * docs/profile1-design.md); the baseline lifts rows first and keeps the components apart. */
void pcwt_frame_coding_resolve(const pcwt_encode_params *p, const pcwt_image_desc *d,
                               pcwt_frame_coding *out)
{
    const int entropy = pcwt_profile_ranged(p->profile); /* entropy or compact */
    const uint32_t max_levels = pcwt_plan_max_levels(d->height, d->width, p->min_ll);
    out->levels = p->levels < max_levels ? p->levels : max_levels;
    pcwt_group_size_wanted(p, &out->group_rows, &out->group_cols);
    out->colour_transform = d->components == 3 && p->colour_transform != PCWT_COLOUR_NONE &&
                            (p->colour_transform == PCWT_COLOUR_RCT || entropy);
    out->columns_first = p->lifting_order != PCWT_LIFTING_AUTO
                             ? p->lifting_order == PCWT_LIFTING_COLUMNS_FIRST
                             : entropy;
}
