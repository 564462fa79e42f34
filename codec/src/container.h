/* container.h - the codestream header (docs/FORMAT.md Sec. 1): its layout, written by the CPU
 * (container.c) and by the GPU (cuda/container_gpu.cu) through the same inline writers, so that
 * the format's fields are defined once. All integers little-endian. */
#ifndef PCWT_CONTAINER_H
#define PCWT_CONTAINER_H

#include "hostdev.h"
#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

#define PCWT_MAGIC "PCWT" /* the first 4 bytes */
#define PCWT_HEADER_FIXED 28u
#define PCWT_PLANE_RECORD 16u
static inline PCWT_HD size_t pcwt_header_size(uint32_t planes)
{
    return PCWT_HEADER_FIXED + PCWT_PLANE_RECORD * planes + 4u;
}

static inline PCWT_HD void pcwt_put16(uint8_t *d, uint32_t v)
{
    d[0] = (uint8_t)v;
    d[1] = (uint8_t)(v >> 8);
}
static inline PCWT_HD void pcwt_put32(uint8_t *d, uint32_t v)
{
    pcwt_put16(d, v);
    pcwt_put16(d + 2, v >> 16);
}
static inline PCWT_HD void pcwt_put64(uint8_t *d, uint64_t v)
{
    pcwt_put32(d, (uint32_t)v);
    pcwt_put32(d + 4, (uint32_t)(v >> 32));
}

/* Whether a profile range-codes its groups (docs/FORMAT.md Sec. 5): the entropy profile, and the
 * compact profile, which adds value maps (Sec. 5.5). */
static inline PCWT_HD int pcwt_profile_ranged(uint32_t profile)
{
    return profile == 1u || profile == 2u;
}

/* The fixed fields of a header, as both writers have them. */
typedef struct pcwt_header_fields {
    uint32_t profile, header_size;
    uint32_t width, height, components, bits_allocated, bits_stored;
    uint32_t is_signed, planar, colour_transform, columns_first; /* the flags byte, bits 0..3 */
    uint32_t levels, plane_count, group_rows, group_cols;
} pcwt_header_fields;

/* Zeroes the header's header_size bytes and writes its magic and fixed fields. */
static inline PCWT_HD void pcwt_header_put_fixed(uint8_t *d, const pcwt_header_fields *h)
{
    for (uint32_t k = 0; k < h->header_size; k++)
        d[k] = 0;
    for (uint32_t k = 0; k < 4; k++)
        d[k] = (uint8_t)PCWT_MAGIC[k];
    d[4] = PCWT_FORMAT_VERSION;
    d[5] = (uint8_t)h->profile;
    pcwt_put16(d + 6, h->header_size);
    pcwt_put32(d + 8, h->width);
    pcwt_put32(d + 12, h->height);
    d[16] = (uint8_t)h->components;
    d[17] = (uint8_t)h->bits_allocated;
    d[18] = (uint8_t)h->bits_stored;
    d[19] = (uint8_t)((h->is_signed ? 1u : 0u) | (h->planar ? 2u : 0u) |
                      (h->colour_transform ? 4u : 0u) | (h->columns_first ? 8u : 0u));
    d[20] = (uint8_t)h->levels;
    d[21] = (uint8_t)h->plane_count;
    pcwt_put16(d + 22, h->group_rows);
    pcwt_put16(d + 24, h->group_cols);
}

/* Plane record i: component, kind, Qmax, options (bit 0: modelled low bits), payload length and
 * payload CRC-32. */
static inline PCWT_HD void pcwt_plane_record_put(uint8_t *d, uint32_t i, uint32_t component,
                                                 uint32_t kind, int qmax, uint32_t options,
                                                 uint64_t payload_length, uint32_t payload_crc32)
{
    uint8_t *r = d + PCWT_HEADER_FIXED + PCWT_PLANE_RECORD * i;
    r[0] = (uint8_t)component;
    r[1] = (uint8_t)kind;
    r[2] = (uint8_t)(int8_t)qmax;
    r[3] = (uint8_t)options;
    pcwt_put64(r + 4, payload_length);
    pcwt_put32(r + 12, payload_crc32);
}

/* The header's CRC-32 of its first header_size - 4 bytes, in its last 4. */
static inline PCWT_HD void pcwt_header_put_crc(uint8_t *d, uint32_t header_size, uint32_t crc)
{
    pcwt_put32(d + header_size - 4, crc);
}

#ifdef __cplusplus
extern "C" {
#endif
/* container.c */
void pcwt_header_write(const pcwt_header_info *info, uint8_t *dst);
pcwt_status pcwt_header_parse(const uint8_t *src, size_t size, pcwt_header_info *info,
                              char *err, size_t err_size);
uint32_t pcwt_crc32(const uint8_t *data, size_t size);
#ifdef __cplusplus
}
#endif

#endif /* PCWT_CONTAINER_H */
