/* container.c - the codestream header (docs/FORMAT.md): fixed fields, one record per plane, and
 * a CRC-32 of the header, written through container.h's writers (shared with the GPU's
 * container_gpu.cu). Parsing validates every field before the caller allocates anything. */
#include "container.h"
#include "j2k_decoder.h"
#include "group_coder.h"
#include "offset.h"
#include "status.h"
#include "value_map.h"

#include <string.h>
#include <zlib.h>

uint32_t pcwt_crc32(const uint8_t *data, size_t size)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (size) { /* zlib takes uInt lengths */
        const uInt chunk = size > 0x40000000u ? 0x40000000u : (uInt)size;
        crc = crc32(crc, data, chunk);
        data += chunk;
        size -= chunk;
    }
    return (uint32_t)crc;
}

static uint32_t get16(const uint8_t *s) { return (uint32_t)s[0] | (uint32_t)s[1] << 8; }
static uint32_t get32(const uint8_t *s) { return get16(s) | get16(s + 2) << 16; }
static uint64_t get64(const uint8_t *s) { return get32(s) | (uint64_t)get32(s + 4) << 32; }

void pcwt_header_write(const pcwt_header_info *info, uint8_t *d)
{
    const pcwt_header_fields h = {
        .profile = (uint32_t)info->profile,
        .header_size = (uint32_t)pcwt_header_size(info->plane_count),
        .width = info->desc.width,
        .height = info->desc.height,
        .components = info->desc.components,
        .bits_allocated = info->desc.bits_allocated,
        .bits_stored = info->desc.bits_stored,
        .is_signed = info->desc.is_signed ? 1u : 0u,
        .planar = info->desc.planar ? 1u : 0u,
        .colour_transform = info->colour_transform ? 1u : 0u,
        .columns_first = info->columns_first ? 1u : 0u,
        .levels = info->levels,
        .plane_count = info->plane_count,
        .group_rows = info->group_rows,
        .group_cols = info->group_cols,
    };
    pcwt_header_put_fixed(d, &h);
    for (uint32_t i = 0; i < info->plane_count; i++)
        pcwt_plane_record_put(d, i, info->planes[i].component, info->planes[i].kind,
                              info->planes[i].qmax, info->planes[i].low_bits | (info->planes[i].value_map << 1) |
                                  (info->planes[i].level1_511 << 2) | (info->planes[i].offset << 3) |
                                  (info->planes[i].second_bit << 4),
                              info->planes[i].payload_length, info->planes[i].payload_crc32);
    pcwt_header_put_crc(d, h.header_size, pcwt_crc32(d, h.header_size - 4));
}

#define FAIL(code, ...)                                                                            \
    do {                                                                                           \
        pcwt_set_error(err, err_size, __VA_ARGS__);                                                \
        return code;                                                                               \
    } while (0)

pcwt_status pcwt_header_parse(const uint8_t *s, size_t size, pcwt_header_info *info, char *err,
                              size_t err_size)
{
    memset(info, 0, sizeof *info);
    if (size < 4 || memcmp(s, PCWT_MAGIC, 4) != 0) {
        if (size < 4 && memcmp(s, PCWT_MAGIC, size) == 0)
            FAIL(PCWT_ERR_TRUNCATED, "codestream truncated: %zu bytes", size);
        FAIL(PCWT_ERR_BAD_MAGIC, "not a PCWT codestream (bad magic)");
    }
    if (size < PCWT_HEADER_FIXED)
        FAIL(PCWT_ERR_TRUNCATED, "codestream truncated in its header (%zu bytes)", size);
    if (s[4] != PCWT_FORMAT_VERSION)
        FAIL(PCWT_ERR_BAD_VERSION, "format version %u not supported (this library reads %u)",
             s[4], PCWT_FORMAT_VERSION);
    if (s[5] != PCWT_PROFILE_BASELINE && s[5] != PCWT_PROFILE_ENTROPY && s[5] != PCWT_PROFILE_COMPACT)
        FAIL(PCWT_ERR_BAD_VERSION, "profile %u not supported", s[5]);
    const uint32_t planes = s[21];
    if (planes < 1 || planes > PCWT_MAX_PLANES)
        FAIL(PCWT_ERR_CORRUPT, "invalid plane count %u", planes);
    const size_t hs = pcwt_header_size(planes);
    if (get16(s + 6) != hs)
        FAIL(PCWT_ERR_CORRUPT, "header size %u does not match %u planes", get16(s + 6), planes);
    if (size < hs)
        FAIL(PCWT_ERR_TRUNCATED, "codestream truncated in its header (%zu of %zu bytes)", size, hs);
#ifndef PCWT_FUZZING_SKIP_CRC
    if (get32(s + hs - 4) != pcwt_crc32(s, hs - 4))
        FAIL(PCWT_ERR_CRC_MISMATCH, "header checksum mismatch");
#endif
    info->format_version = s[4];
    info->profile = (pcwt_profile)s[5];
    pcwt_image_desc *d = &info->desc;
    d->width = get32(s + 8);
    d->height = get32(s + 12);
    d->components = s[16];
    d->bits_allocated = s[17];
    d->bits_stored = s[18];
    d->is_signed = s[19] & 1u;
    d->planar = (s[19] >> 1) & 1u;
    info->colour_transform = (s[19] >> 2) & 1u;
    info->columns_first = (s[19] >> 3) & 1u;
    info->levels = s[20];
    info->plane_count = planes;
    info->group_rows = get16(s + 22);
    info->group_cols = get16(s + 24);
    if (d->width < 1 || d->width > PCWT_MAX_SIDE || d->height < 1 || d->height > PCWT_MAX_SIDE)
        FAIL(PCWT_ERR_CORRUPT, "invalid image size %ux%u", d->width, d->height);
    if (d->components != 1 && d->components != 3)
        FAIL(PCWT_ERR_CORRUPT, "invalid component count %u", d->components);
    /* the format's limit, which no encoder writes past: beyond it no buffer size is defined */
    if ((uint64_t)d->width * d->height * d->components > PCWT_MAX_SAMPLES)
        FAIL(PCWT_ERR_LIMIT_EXCEEDED, "%ux%u image of %u components: more than %llu samples",
             d->width, d->height, d->components, (unsigned long long)PCWT_MAX_SAMPLES);
    if (d->bits_allocated != 8 && d->bits_allocated != 16)
        FAIL(PCWT_ERR_CORRUPT, "invalid bits allocated %u", d->bits_allocated);
    if (d->bits_stored < 1 || d->bits_stored > d->bits_allocated)
        FAIL(PCWT_ERR_CORRUPT, "invalid bits stored %u", d->bits_stored);
    if ((s[19] & ~15u) || (d->planar && d->components == 1) || get16(s + 26) != 0)
        FAIL(PCWT_ERR_CORRUPT, "reserved header bits set");
    if (info->colour_transform && d->components != 3)
        FAIL(PCWT_ERR_CORRUPT, "colour transform flag set on a %u-component image", d->components);
    if (info->levels > PCWT_MAX_LEVELS)
        FAIL(PCWT_ERR_CORRUPT, "invalid level count %u", info->levels);
    if (info->group_rows < 1 || info->group_rows > PCWT_MAX_GROUP || info->group_cols < 1 ||
        info->group_cols > PCWT_MAX_GROUP)
        FAIL(PCWT_ERR_CORRUPT, "invalid group size %ux%u", info->group_rows, info->group_cols);

    pcwt_plan plan;
    pcwt_plan_make(&plan, d->height, d->width, info->levels);
    uint64_t total = hs;
    uint32_t expect_comp = 0;
    for (uint32_t i = 0; i < planes; i++) {
        const uint8_t *r = s + PCWT_HEADER_FIXED + PCWT_PLANE_RECORD * i;
        const uint32_t comp = r[0], kind = r[1];
        const int qmax = (int8_t)r[2];
        /* Planes: each component's value plane, optionally followed by its high-bit plane. */
        const int next_value = kind == 0 && comp == expect_comp;
        const int high = kind == 1 && i > 0 && comp + 1 == expect_comp && (r - PCWT_PLANE_RECORD)[1] == 0 &&
                         d->bits_stored < d->bits_allocated;
        if (!next_value && !high)
            FAIL(PCWT_ERR_CORRUPT, "plane %u: unexpected component %u kind %u", i, comp, kind);
        if (next_value)
            expect_comp++;
        /* options: bit 0, modelled low bits (entropy and compact profiles); bit 1, a value map
         * (compact profile); bit 2, the 5/11-C filter at level 1 (entropy and compact, L >= 1);
         * bit 3, a modular offset (compact profile, value planes without the colour transform);
         * bit 4, the modelled second mantissa bit (entropy and compact) */
        const unsigned allowed = info->profile == PCWT_PROFILE_COMPACT   ? 31u
                                 : info->profile == PCWT_PROFILE_ENTROPY ? 21u
                                                                         : 0u;
        if (r[3] & ~allowed)
            FAIL(PCWT_ERR_CORRUPT, "plane %u: invalid options byte 0x%02x", i, r[3]);
        if ((r[3] & 8u) && !pcwt_offset_allowed(info->profile, kind, info->colour_transform))
            FAIL(PCWT_ERR_CORRUPT, "plane %u: modular offset on a %s plane", i,
                 kind ? "high-bit" : "colour-transformed");
        if ((r[3] & 4u) && info->levels == 0)
            FAIL(PCWT_ERR_CORRUPT, "plane %u: level-1 filter 5/11-C without a wavelet level", i);
        if (qmax < -1 || qmax > PCWT_MAX_QMAX)
            FAIL(PCWT_ERR_CORRUPT, "plane %u: invalid Qmax %d", i, qmax);
        const uint64_t len = get64(r + 4);
        /* r0 (option bit 3) and a value map (option bit 1) precede the groups */
        const uint64_t max = pcwt_payload_max_size(&plan, qmax, info->group_rows, info->group_cols) +
                             ((r[3] & 2u) ? pcwt_value_map_max_bytes((uint64_t)d->width * d->height) : 0u) +
                             ((r[3] & 8u) ? PCWT_OFFSET_BYTES : 0u);
        if (len > max)
            FAIL(PCWT_ERR_CORRUPT, "plane %u: payload length %llu exceeds the maximum %llu", i,
                 (unsigned long long)len, (unsigned long long)max);
        info->planes[i].component = comp;
        info->planes[i].kind = kind;
        info->planes[i].qmax = qmax;
        info->planes[i].low_bits = r[3] & 1u;
        info->planes[i].value_map = (r[3] >> 1) & 1u;
        info->planes[i].level1_511 = (r[3] >> 2) & 1u;
        info->planes[i].offset = (r[3] >> 3) & 1u;
        info->planes[i].second_bit = (r[3] >> 4) & 1u;
        info->planes[i].payload_length = len;
        info->planes[i].payload_crc32 = get32(r + 12);
        total += len;
    }
    if (expect_comp != d->components)
        FAIL(PCWT_ERR_CORRUPT, "%u value planes for %u components", expect_comp, d->components);
    if (total > SIZE_MAX)
        FAIL(PCWT_ERR_LIMIT_EXCEEDED, "codestream too large for this platform");
    info->header_length = hs;
    info->codestream_length = (size_t)total;
    return PCWT_OK;
}

pcwt_status pcwt_read_header(const void *src, size_t src_size, pcwt_header_info *info)
{
    if (!src || !info)
        return PCWT_ERR_INVALID_ARGUMENT;
    if (pcwt_j2k_is_codestream(src, src_size)) /* the decoder's third codec (j2k_decoder.c) */
        return pcwt_j2k_read_header((const uint8_t *)src, src_size, info, NULL, 0);
    return pcwt_header_parse((const uint8_t *)src, src_size, info, NULL, 0);
}
