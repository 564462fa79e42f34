/* j2k_ht.h - HTJ2K (ITU-T T.814, Part 15) decoding of one code-block: the checks and messages
 * around the block decoder of j2k_ht_rules.h, which the GPU runs as well. The CPU reference. */
#ifndef PCWT_J2K_HT_H
#define PCWT_J2K_HT_H

#include "j2k_batch.h"

/* Decodes HT code-block `index` of the batch into coefs (b->coef_count values), its final
 * reversible coefficients at the places j2k_batch.h describes. Never reads outside its segments,
 * never writes outside its own rectangle of coefs. PCWT_ERR_UNSUPPORTED (with a message) for what
 * OpenJPEG does not decode either (more than one HT set, Mb above 30), PCWT_ERR_CORRUPT for an
 * inconsistent code-block. scratch: PCWT_J2K_HT_SCRATCH bytes (PCWT_J2K_T1_SCRATCH is more). */
pcwt_status pcwt_j2k_ht_decode(const pcwt_j2k_batch *b, size_t index, int32_t *coefs, void *scratch,
                               char *err, size_t err_size);

#endif /* PCWT_J2K_HT_H */
