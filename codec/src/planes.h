/* planes.h - samples <-> int32 planes (planes.c; what a sample word means: samples.h). kind 0: the
 * value in bits_stored bits (sign-extended when signed); kind 1: the bits above bits_stored that
 * differ from the canonical extension. */
#ifndef PCWT_PLANES_H
#define PCWT_PLANES_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

pcwt_status pcwt_desc_check(const pcwt_image_desc *desc, char *err, size_t err_size);
int pcwt_plane_has_high_bits(const pcwt_image_desc *d, const void *samples, uint32_t comp);
/* The value plane of component comp under the reversible colour transform (rct.h). */
void pcwt_plane_extract_rct(const pcwt_image_desc *d, const void *samples, uint32_t comp,
                            int32_t *dst, uint32_t stride);
void pcwt_plane_extract(const pcwt_image_desc *d, const void *samples, uint32_t comp,
                        uint32_t kind, int32_t *dst, uint32_t stride);
/* Stores a decoded plane; returns 0 when a value is out of the declared range. */
int pcwt_plane_store(const pcwt_image_desc *d, void *samples, uint32_t comp, uint32_t kind,
                     const int32_t *src, uint32_t stride);

#endif /* PCWT_PLANES_H */
