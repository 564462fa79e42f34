/* group_coder.h - element and group coding of one plane in the baseline profile (group_coder.c),
 * and the consistency checks the decoders of both profiles make (FORMAT.md Sec. 4.1). */
#ifndef PCWT_GROUP_CODER_H
#define PCWT_GROUP_CODER_H

#include "pyramid.h"

#include <stddef.h>
#include <stdint.h>

uint64_t pcwt_group_count(const pcwt_pyramid *p, uint32_t group_rows, uint32_t group_cols);
uint64_t pcwt_payload_size(const pcwt_pyramid *p, int qmax, uint32_t group_rows,
                           uint32_t group_cols);
uint64_t pcwt_payload_max_size(const pcwt_plan *plan, int qmax, uint32_t group_rows,
                               uint32_t group_cols);
void pcwt_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t group_rows, uint32_t group_cols,
                         uint8_t *dst);
pcwt_status pcwt_payload_decode(pcwt_pyramid *p, int qmax, uint32_t group_rows,
                                uint32_t group_cols, const uint8_t *src, size_t size, char *err,
                                size_t err_size);
/* Once band b is decoded (either profile's payload): when it is the last band of the top level,
 * Qmax must be the largest top-level MQD, as the encoder computes it; below the top level, each
 * MQD of its parent band b - 3 must be the largest level of its children's MQDs and its own
 * coefficients. */
pcwt_status pcwt_check_band_decoded(const pcwt_pyramid *p, uint32_t b, int qmax, char *err,
                                    size_t err_size);
/* A payload decoded up to pos of its size: no byte may follow its last group. */
pcwt_status pcwt_check_payload_end(size_t pos, size_t size, char *err, size_t err_size);

#endif /* PCWT_GROUP_CODER_H */
