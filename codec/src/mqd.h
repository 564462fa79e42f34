/* mqd.h - maximum quantisation levels: the level of a magnitude (shared with the GPU), the MQD
 * bands of a plane, backward from the finest level, and its Qmax (mqd.c). */
#ifndef PCWT_MQD_H
#define PCWT_MQD_H

#include "hostdev.h"
#include "pyramid.h"

#include <stdint.h>

static inline PCWT_HD int pcwt_ql_of_magnitude(uint32_t a)
{
    return a ? PCWT_LOG2(a) : -1;
}

void pcwt_mqd_band(const int32_t *coef, uint32_t cols, int8_t *mqd, uint32_t mrows,
                   uint32_t mcols, const int8_t *child, uint32_t crows, uint32_t ccols);
int pcwt_mqd_compute(pcwt_pyramid *p); /* returns Qmax (-1 for an all-zero plane) */

#endif /* PCWT_MQD_H */
