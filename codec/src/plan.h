/* plan.h - what a frame is coded with: the format's size limits, the level and band sizes of a
 * decomposition (Ao 2014, Fig. 3.2), and the one resolution of the encoder's AUTO options into
 * the choices recorded in the header, which both backends code a frame with (plan.c). */
#ifndef PCWT_PLAN_H
#define PCWT_PLAN_H

#include "pcwt.h"

#include <stdint.h>

/* Largest image side the format accepts (DICOM Rows/Columns are 16-bit). */
#define PCWT_MAX_SIDE 65535u
/* Largest quantisation level the format accepts: magnitudes stay below 2^31. */
#define PCWT_MAX_QMAX 30
/* Bands of a pyramid: LL plus HL, LH, HH per level. */
#define PCWT_MAX_BANDS (1 + 3 * PCWT_MAX_LEVELS)

/* Sizes of one decomposition level: the level's input (even), each of its four bands (even, zero
 * padded lazily), and the MQD bands (half the band). */
typedef struct pcwt_level_size {
    uint32_t level_r, level_c;
    uint32_t band_r, band_c;
    uint32_t mqd_r, mqd_c;
} pcwt_level_size;

typedef struct pcwt_plan {
    uint32_t rows, cols; /* image */
    uint32_t levels;
    pcwt_level_size lv[PCWT_MAX_LEVELS + 1]; /* lv[l-1] for level l = 1..levels */
    uint32_t ll_r, ll_c;                      /* top-level LL band (padded image if levels == 0) */
} pcwt_plan;

static inline uint32_t pcwt_even_up(uint32_t n) { return n + (n & 1u); }

uint32_t pcwt_plan_max_levels(uint32_t rows, uint32_t cols, uint32_t min_ll);
void pcwt_plan_make(pcwt_plan *plan, uint32_t rows, uint32_t cols, uint32_t levels);

/* The frame-level choices of the encoder's options for one image, AUTO values resolved: what the
 * header records and both backends code with. (A plane's low-bit modelling is chosen per plane,
 * from its coefficients, by the entropy coder: pcwt_ec_low_bits_wanted.) */
typedef struct pcwt_frame_coding {
    uint32_t levels;                 /* capped by the image size and min_ll */
    uint32_t group_rows, group_cols; /* the profile's size where the options say 0x0 */
    uint32_t colour_transform;       /* 1: the reversible colour transform (3 components) */
    uint32_t columns_first;          /* 1: each level lifts columns before rows */
} pcwt_frame_coding;

void pcwt_frame_coding_resolve(const pcwt_encode_params *p, const pcwt_image_desc *d,
                               pcwt_frame_coding *out);
/* The group size of options whose group_rows x group_cols may be 0x0 (the profile's size). */
void pcwt_group_size_wanted(const pcwt_encode_params *p, uint32_t *group_rows,
                            uint32_t *group_cols);

#endif /* PCWT_PLAN_H */
