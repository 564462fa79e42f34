/* value_map.c - value compaction of a plane (value_map.h; docs/FORMAT.md Sec. 5.5). */
#include "value_map.h"

#include "ec_record.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

void pcwt_value_map_free(pcwt_value_map *m)
{
    if (!m)
        return;
    free(m->values);
    memset(m, 0, sizeof *m);
}

static pcwt_status reserve(pcwt_value_map *m, uint32_t count)
{
    if (count <= m->cap)
        return PCWT_OK;
    int32_t *v = realloc(m->values, sizeof *v * count);
    if (!v)
        return PCWT_ERR_OUT_OF_MEMORY;
    m->values = v;
    m->cap = count;
    return PCWT_OK;
}

pcwt_status pcwt_value_map_build(pcwt_value_map *m, const int32_t *plane, size_t stride, uint32_t rows,
                                 uint32_t cols)
{
    m->count = 0;
    if (rows == 0 || cols == 0)
        return PCWT_OK;
    int32_t lo = plane[0], hi = plane[0];
    for (uint32_t r = 0; r < rows; r++) {
        const int32_t *row = plane + (size_t)r * stride;
        for (uint32_t c = 0; c < cols; c++) {
            lo = row[c] < lo ? row[c] : lo;
            hi = row[c] > hi ? row[c] : hi;
        }
    }
    const uint32_t span = (uint32_t)(hi - lo) + 1u;
    uint8_t *used = calloc(span, 1);
    if (!used)
        return PCWT_ERR_OUT_OF_MEMORY;
    for (uint32_t r = 0; r < rows; r++) {
        const int32_t *row = plane + (size_t)r * stride;
        for (uint32_t c = 0; c < cols; c++)
            used[row[c] - lo] = 1;
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < span; i++)
        count += used[i];
    pcwt_status st = reserve(m, count);
    if (st == PCWT_OK) {
        for (uint32_t i = 0; i < span; i++)
            if (used[i])
                m->values[m->count++] = lo + (int32_t)i;
    }
    free(used);
    return st;
}

pcwt_status pcwt_value_map_from_used(pcwt_value_map *m, const uint8_t *used, uint32_t bits,
                                     int is_signed, int offset, uint32_t r0)
{
    m->count = 0;
    const uint32_t n = 1u << bits, mask = n - 1u;
    /* the values in ascending order: (u - r0) mod 2^bits from 0, or the samples' own from the
     * lowest that bits hold */
    const int32_t lo = !offset && is_signed ? -(int32_t)(n / 2u) : 0;
    const uint32_t at = offset ? r0 : 0u;
    uint32_t count = 0;
    for (uint32_t u = 0; u < n; u++)
        count += used[u];
    const pcwt_status st = reserve(m, count);
    if (st != PCWT_OK)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        const int32_t v = lo + (int32_t)i;
        if (used[((uint32_t)v + at) & mask])
            m->values[m->count++] = v;
    }
    return PCWT_OK;
}

int pcwt_value_map_wanted(const pcwt_value_map *m)
{
    uint32_t max_step = 0;
    for (uint32_t i = 1; i < m->count; i++) {
        const uint32_t d = (uint32_t)(m->values[i] - m->values[i - 1]);
        max_step = d > max_step ? d : max_step;
    }
    return pcwt_value_map_wanted_summary(m->count, m->count ? m->values[0] : 0,
                                         m->count ? m->values[m->count - 1] : 0, max_step);
}

/* The coded map's layout: value_map.h (pcwt_vmap_put_head). */
size_t pcwt_value_map_bound(const pcwt_value_map *m)
{
    return (size_t)pcwt_value_map_max_bytes(m->count);
}

pcwt_status pcwt_value_map_write(const pcwt_value_map *m, uint8_t *dst, size_t cap, size_t *written)
{
    *written = 0;
    if (m->count == 0)
        return PCWT_ERR_INVALID_ARGUMENT;
    /* The stream first, after room for the longest header. */
    if (cap < PCWT_VMAP_HEAD_MAX)
        return PCWT_ERR_BUFFER_TOO_SMALL;
    pcwt_bit_model models[PCWT_VMAP_MODELS];
    pcwt_vmap_models_init(models);
    pcwt_rc_enc rc;
    pcwt_rc_enc_init(&rc, dst + PCWT_VMAP_HEAD_MAX, cap - PCWT_VMAP_HEAD_MAX);
    uint32_t ctx = 1;
    for (uint32_t i = 1; i < m->count; i++) {
        const uint32_t g = (uint32_t)(m->values[i] - m->values[i - 1]) - 1u;
        pcwt_vmap_put_gap(&rc, models, ctx, g);
        ctx = g != 0;
    }
    const size_t alen = m->count > 1 ? pcwt_rc_enc_finish(&rc, dst + PCWT_VMAP_HEAD_MAX) : 0;
    if (rc.overflow)
        return PCWT_ERR_BUFFER_TOO_SMALL;
    *written = pcwt_vmap_put_head(dst, m->count, m->values[0], alen);
    return PCWT_OK;
}

void pcwt_value_map_to_ranks(const pcwt_value_map *m, int32_t *plane, size_t stride, uint32_t rows,
                             uint32_t cols)
{
    if (m->count == 0)
        return;
    /* A lookup table over the span (at most PCWT_VMAP_MAX_COUNT entries); the samples are all in
     * the map, so a failed allocation falls back to binary search. */
    const int32_t lo = m->values[0];
    const uint32_t span = (uint32_t)(m->values[m->count - 1] - lo) + 1u;
    int32_t *rank = malloc(sizeof *rank * span);
    if (rank)
        for (uint32_t i = 0; i < m->count; i++)
            rank[m->values[i] - lo] = (int32_t)i;
    for (uint32_t r = 0; r < rows; r++) {
        int32_t *row = plane + (size_t)r * stride;
        for (uint32_t c = 0; c < cols; c++) {
            if (rank) {
                row[c] = rank[row[c] - lo];
                continue;
            }
            uint32_t a = 0, b = m->count - 1u;
            while (a < b) {
                const uint32_t mid = a + (b - a) / 2u;
                if (m->values[mid] < row[c])
                    a = mid + 1u;
                else
                    b = mid;
            }
            row[c] = (int32_t)a;
        }
    }
    free(rank);
}

int pcwt_value_map_to_ranks_mod(const pcwt_value_map *m, int32_t *plane, size_t stride, uint32_t rows,
                                uint32_t cols, uint32_t bits, uint32_t r0)
{
    const uint32_t mask = (1u << bits) - 1u;
    int32_t *rank = malloc(sizeof *rank * (mask + 1u)); /* by v mod 2^bits; the used ones set */
    if (!rank)
        return 0;
    for (uint32_t i = 0; i < m->count; i++)
        rank[((uint32_t)m->values[i] + r0) & mask] = (int32_t)i;
    for (uint32_t r = 0; r < rows; r++) {
        int32_t *row = plane + (size_t)r * stride;
        for (uint32_t c = 0; c < cols; c++)
            row[c] = rank[(uint32_t)row[c] & mask];
    }
    free(rank);
    return 1;
}

pcwt_status pcwt_value_map_read(pcwt_value_map *m, const uint8_t *src, size_t size, uint64_t max_count,
                                size_t *used, char *err, size_t err_size)
{
    m->count = 0;
    *used = 0;
    size_t pos = 0;
    uint32_t count = 0, alen = 0;
    int64_t first = 0;
    int why = pcwt_vmap_read_head(src, size, max_count, &count, &first, &alen, &pos);
    if (why == PCWT_VMAP_OK) {
        if (reserve(m, count) != PCWT_OK) {
            pcwt_set_error(err, err_size, "value map: out of memory for %u values", count);
            return PCWT_ERR_OUT_OF_MEMORY;
        }
        why = pcwt_vmap_read_values(src + pos, alen, count, first, m->values);
    }
    switch (why) {
    case PCWT_VMAP_OK:
        m->count = count;
        *used = pos + alen;
        return PCWT_OK;
    case PCWT_VMAP_BAD_HEAD:
        pcwt_set_error(err, err_size, "value map: truncated or malformed header");
        break;
    case PCWT_VMAP_BAD_COUNT:
        pcwt_set_error(err, err_size, "value map: %u values (at most %llu)", count,
                       (unsigned long long)(max_count < PCWT_VMAP_MAX_COUNT ? max_count : PCWT_VMAP_MAX_COUNT));
        break;
    case PCWT_VMAP_BAD_FIRST:
        pcwt_set_error(err, err_size, "value map: values from %lld outside the planes' range", (long long)first);
        break;
    case PCWT_VMAP_BAD_LENGTH:
        pcwt_set_error(err, err_size, "value map: stream of %u bytes does not fit the payload", alen);
        break;
    default:
        pcwt_set_error(err, err_size, "value map: corrupt value stream");
        break;
    }
    return PCWT_ERR_CORRUPT;
}

pcwt_status pcwt_value_map_from_ranks(const pcwt_value_map *m, int32_t *plane, size_t stride, uint32_t rows,
                                      uint32_t cols, char *err, size_t err_size)
{
    for (uint32_t r = 0; r < rows; r++) {
        int32_t *row = plane + (size_t)r * stride;
        for (uint32_t c = 0; c < cols; c++) {
            const int32_t k = row[c];
            if (k < 0 || (uint32_t)k >= m->count) {
                pcwt_set_error(err, err_size, "value map: rank %d outside the map of %u values", k, m->count);
                return PCWT_ERR_CORRUPT;
            }
            row[c] = m->values[k];
        }
    }
    return PCWT_OK;
}
