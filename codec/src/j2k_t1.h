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

/* Decodes code-block `index` of the batch into coefs (b->coef_count values), final reversible
 * coefficients at the places j2k_batch.h describes. Never reads outside b->data or the
 * code-block's segments, never writes outside its own rectangle of coefs. PCWT_ERR_UNSUPPORTED
 * (with a message) for a style it does not decode, PCWT_ERR_CORRUPT for inconsistent fields
 * (more passes than bit-planes, a rectangle outside coefs). scratch: PCWT_J2K_T1_SCRATCH bytes. */
pcwt_status pcwt_j2k_t1_decode(const pcwt_j2k_batch *b, size_t index, int32_t *coefs,
                               void *scratch, char *err, size_t err_size);

#endif /* PCWT_J2K_T1_H */
