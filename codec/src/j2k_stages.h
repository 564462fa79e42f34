/* j2k_stages.h - the CPU stages after tier-1 of a JPEG 2000 frame: the inverse 5/3 DWT of a
 * tile-component in place (j2k_idwt.c) and the component transforms into the caller's samples
 * (j2k_output.c). */
#ifndef PCWT_J2K_STAGES_H
#define PCWT_J2K_STAGES_H

#include "j2k_batch.h"

#include <stdint.h>

/* The inverse DWT of tile-component tc, in place in coefs (its coef_offset onwards); tmp holds
 * tc->width * tc->height int32 values. */
void pcwt_j2k_idwt(const pcwt_j2k_tilecomp *tc, int32_t *coefs, int32_t *tmp);

/* The frame's reconstructed components (after pcwt_j2k_idwt) through the inverse RCT, the DC
 * level shift and the clipping into f->dst (f->desc: interleaved, 8 or 16 bits, signed values
 * sign-extended into the word). The RCT works in place on coefs. */
void pcwt_j2k_output(const pcwt_j2k_batch *b, const pcwt_j2k_frame *f, int32_t *coefs);

#endif /* PCWT_J2K_STAGES_H */
