/* j2k_t1.h - JPEG 2000 Part 1 tier-1 decoding of one code-block (ITU-T T.800 Annex D): the MQ
 * decoder and the significance propagation, magnitude refinement and cleanup passes, bit-plane by
 * bit-plane, into the batch's coefficient buffer (j2k_batch.h). The CPU reference; the GPU twin
 * (cuda/j2k_t1_gpu.cu) decodes every code-block of a batch at once and writes the same values. */
#ifndef PCWT_J2K_T1_H
#define PCWT_J2K_T1_H

#include "j2k_batch.h"

/* Bytes of working memory pcwt_j2k_t1_decode needs: one code-block's state words
 * (pcwt_j2k_state_words of j2k_t1_rules.h, at most 7168 16-bit words), with room to spare. */
#define PCWT_J2K_T1_SCRATCH ((size_t)(66 * 66 * 4 + 4096 * 4))

/* The shapes of the passes pcwt_j2k_t1_block runs (the same symbols in the same order): straight
 * (column by column, the CPU's: fastest there), a symbol loop per pass, one symbol loop over all
 * passes (j2k_t1_loops.h; on the GPU a warp's code-blocks then meet at one decode call). */
enum { PCWT_J2K_T1_STRAIGHT = 0, PCWT_J2K_T1_PASS_LOOPS = 1, PCWT_J2K_T1_ONE_LOOP = 2 };

/* Decodes code-block `index` of the batch into coefs (b->coef_count values), final reversible
 * coefficients at the places j2k_batch.h describes. Never reads outside b->data or the
 * code-block's segments, never writes outside its own rectangle of coefs. PCWT_ERR_UNSUPPORTED
 * (with a message) for a style it does not decode, PCWT_ERR_CORRUPT for inconsistent fields
 * (more passes than bit-planes, a rectangle outside coefs). scratch: PCWT_J2K_T1_SCRATCH bytes. */
pcwt_status pcwt_j2k_t1_decode(const pcwt_j2k_batch *b, size_t index, int32_t *coefs,
                               void *scratch, char *err, size_t err_size);

/* The same with the passes in another shape (PCWT_J2K_T1_STRAIGHT, the CPU's, or the GPU's
 * loops of j2k_t1_rules.h), so that the CPU tests check every shape the GPU may run. */
pcwt_status pcwt_j2k_t1_decode_as(const pcwt_j2k_batch *b, size_t index, int shape, int32_t *coefs,
                                  void *scratch, char *err, size_t err_size);

#endif /* PCWT_J2K_T1_H */
