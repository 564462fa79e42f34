/* element.h - element coding of the baseline profile (Ao 2014, Sec. 3.4, checked against its
 * Figs. 3.13 and 3.14). An element is an MQD m and its 2x2 coefficients (TL, TR, BL, BR); r is
 * the reference, Qmax on the top level or the parent MQD below it (r >= m).
 *   MQD:          m >= 0: (r - m) zeros then a 1;  m = -1: r + 1 zeros (nothing if r = -1)
 *   coefficients: only when m >= 0, each as m+1 magnitude bits MSB first then a sign bit
 *                 (1 = positive; zero gets 0). */
#ifndef PCWT_ELEMENT_H
#define PCWT_ELEMENT_H

#include "bitio.h"
#include "mqd.h"

static inline PCWT_HD uint32_t pcwt_element_bits(int r, int m)
{
    return m >= 0 ? (uint32_t)(r - m + 1 + 4 * (m + 2)) : (uint32_t)(r + 1);
}

static inline void pcwt_element_encode(pcwt_bitwriter *w, int r, int m, const int32_t c[4])
{
    if (m < 0) {
        pcwt_bw_put(w, 0, (uint32_t)(r + 1));
        return;
    }
    pcwt_bw_put(w, 1, (uint32_t)(r - m + 1));
    const uint32_t nb = (uint32_t)m + 2;
    for (int k = 0; k < 4; k++)
        pcwt_bw_put(w, (pcwt_magnitude(c[k]) << 1) | (uint32_t)(c[k] > 0), nb);
}

/* 1 when the largest level of an element's coefficients is m >= 0: the codes give them at most
 * m + 1 magnitude bits, so whether one of them has bit m. */
static inline PCWT_HD int pcwt_element_reaches(const int32_t c[4], int m)
{
    return ((pcwt_magnitude(c[0]) | pcwt_magnitude(c[1]) | pcwt_magnitude(c[2]) |
             pcwt_magnitude(c[3])) >> m) != 0;
}

/* Returns m (-1..r), or -2 when the bits are not a valid element (a "negative zero"). */
static inline int pcwt_element_decode(pcwt_bitreader *rd, int r, int32_t c[4])
{
    c[0] = c[1] = c[2] = c[3] = 0;
    if (r < 0)
        return -1;
    const uint32_t z = pcwt_br_peek_zeros(rd);
    if (z > (uint32_t)r) {
        pcwt_br_skip(rd, (uint32_t)r + 1);
        return -1;
    }
    pcwt_br_skip(rd, z + 1);
    const int m = r - (int)z;
    const uint32_t nb = (uint32_t)m + 2;
    for (int k = 0; k < 4; k++) {
        const uint32_t v = pcwt_br_get(rd, nb);
        const uint32_t a = v >> 1;
        if (v & 1u)
            c[k] = (int32_t)a;
        else
            c[k] = -(int32_t)a;
        if (v == 1u)
            return -2;
    }
    return m;
}

#endif /* PCWT_ELEMENT_H */
