/* group_coder_ec.h - element and group coding of one plane in the entropy profile (profile 1;
 * "ec" names it throughout codec/ and cuda/): group_coder_ec.c. A plane's payload is never larger
 * than pcwt_payload_size() of the baseline. */
#ifndef PCWT_GROUP_CODER_EC_H
#define PCWT_GROUP_CODER_EC_H

#include "ec_model.h"
#include "pyramid.h"

#include <stddef.h>
#include <stdint.h>

/* low: the plane's modelled bits, PCWT_EC_LOW_BITS | PCWT_EC_SECOND_BIT (ec_model.h). */
pcwt_status pcwt_ec_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t group_rows,
                                   uint32_t group_cols, int low, uint8_t *dst, size_t cap,
                                   size_t *written);
pcwt_status pcwt_ec_payload_decode(pcwt_pyramid *p, int qmax, uint32_t group_rows,
                                   uint32_t group_cols, int low, const uint8_t *src, size_t size,
                                   char *err, size_t err_size);
/* Whether a plane's low magnitude bits are worth modelling (plane option bit 0, FORMAT.md
 * Sec. 5.3), from its transformed pyramid. */
int pcwt_ec_low_bits_wanted(const pcwt_pyramid *p);
/* The counts that decision weighs: pcwt_ec_low_tally of the coefficients of every
 * PCWT_EC_LOW_ROW_STEP-th element row of each band. */
void pcwt_ec_low_stats_of(const pcwt_pyramid *p, pcwt_ec_low_stats *s);

#endif /* PCWT_GROUP_CODER_EC_H */
