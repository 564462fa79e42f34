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

int pcwt_value_map_wanted(const pcwt_value_map *m)
{
    if (m->count < 2)
        return m->count == 1;
    const uint64_t span = (uint64_t)((int64_t)m->values[m->count - 1] - m->values[0]) + 1u;
    if ((uint64_t)m->count * 8u <= span * 7u)
        return 1;
    for (uint32_t i = 1; i < m->count; i++)
        if ((uint64_t)(m->values[i] - m->values[i - 1]) * 16u > span)
            return 1;
    return 0;
}

/* Header: LEB128 count, LEB128 zigzag(first value), LEB128 A; then A bytes of range-coder
 * stream. */
size_t pcwt_value_map_bound(const pcwt_value_map *m)
{
    return (size_t)pcwt_value_map_max_bytes(m->count);
}

static uint32_t zigzag(int32_t v)
{
    return v < 0 ? 2u * (uint32_t)(-(int64_t)v) - 1u : 2u * (uint32_t)v;
}

pcwt_status pcwt_value_map_write(const pcwt_value_map *m, uint8_t *dst, size_t cap, size_t *written)
{
    *written = 0;
    if (m->count == 0)
        return PCWT_ERR_INVALID_ARGUMENT;
    /* The stream first, after room for the longest header (3 + 3 + 5 bytes). */
    enum { HEAD_MAX = 11 };
    if (cap < HEAD_MAX)
        return PCWT_ERR_BUFFER_TOO_SMALL;
    pcwt_bit_model models[PCWT_VMAP_MODELS];
    pcwt_vmap_models_init(models);
    pcwt_rc_enc rc;
    pcwt_rc_enc_init(&rc, dst + HEAD_MAX, cap - HEAD_MAX);
    uint32_t ctx = 1;
    for (uint32_t i = 1; i < m->count; i++) {
        const uint32_t g = (uint32_t)(m->values[i] - m->values[i - 1]) - 1u;
        pcwt_vmap_put_gap(&rc, models, ctx, g);
        ctx = g != 0;
    }
    const size_t alen = m->count > 1 ? pcwt_rc_enc_finish(&rc, dst + HEAD_MAX) : 0;
    if (rc.overflow)
        return PCWT_ERR_BUFFER_TOO_SMALL;
    const size_t head = pcwt_leb128_size(m->count) + pcwt_leb128_size(zigzag(m->values[0])) +
                        pcwt_leb128_size(alen);
    uint8_t *p = dst;
    memmove(dst + head, dst + HEAD_MAX, alen);
    p = pcwt_leb128_put(p, m->count);
    p = pcwt_leb128_put(p, zigzag(m->values[0]));
    p = pcwt_leb128_put(p, alen);
    *written = head + alen;
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

static int32_t unzigzag(uint32_t z)
{
    return (z & 1u) ? (int32_t)(-(int64_t)((z >> 1) + 1u)) : (int32_t)(z >> 1);
}

static uint32_t get_gap(pcwt_rc_dec *d, pcwt_bit_model *m, uint32_t ctx, int *bad)
{
    uint32_t n = 0;
    while (pcwt_rc_decode(d, pcwt_vmap_prefix_model(m, ctx, n))) {
        if (++n > PCWT_VMAP_PREFIX) { /* no gap of a valid map needs more than 18 bits */
            *bad = 1;
            return 0;
        }
    }
    uint32_t x = 1;
    for (uint32_t j = 0; j < n; j++)
        x = (x << 1) | pcwt_rc_decode(d, pcwt_vmap_suffix_model(m, n, j));
    return x - 1u;
}

pcwt_status pcwt_value_map_read(pcwt_value_map *m, const uint8_t *src, size_t size, uint64_t max_count,
                                size_t *used, char *err, size_t err_size)
{
    m->count = 0;
    *used = 0;
    size_t pos = 0;
    uint32_t count = 0, z = 0, alen = 0;
    if (!pcwt_leb128_get(src, size, &pos, &count) || !pcwt_leb128_get(src, size, &pos, &z) ||
        !pcwt_leb128_get(src, size, &pos, &alen)) {
        pcwt_set_error(err, err_size, "value map: truncated or malformed header");
        return PCWT_ERR_CORRUPT;
    }
    const int64_t first = (int64_t)unzigzag(z);
    if (count == 0 || count > PCWT_VMAP_MAX_COUNT || count > max_count) {
        pcwt_set_error(err, err_size, "value map: %u values (at most %llu)", count,
                       (unsigned long long)(max_count < PCWT_VMAP_MAX_COUNT ? max_count : PCWT_VMAP_MAX_COUNT));
        return PCWT_ERR_CORRUPT;
    }
    if (first < PCWT_VMAP_MIN || first + (int64_t)count - 1 > PCWT_VMAP_MAX) {
        pcwt_set_error(err, err_size, "value map: values from %lld outside the planes' range", (long long)first);
        return PCWT_ERR_CORRUPT;
    }
    if (alen > size - pos || (count == 1 && alen != 0) || (count > 1 && alen == 0)) {
        pcwt_set_error(err, err_size, "value map: stream of %u bytes does not fit the payload", alen);
        return PCWT_ERR_CORRUPT;
    }
    pcwt_status st = reserve(m, count);
    if (st != PCWT_OK) {
        pcwt_set_error(err, err_size, "value map: out of memory for %u values", count);
        return st;
    }
    const uint8_t *a = src + pos;
    m->values[0] = (int32_t)first;
    m->count = 1;
    if (count > 1) {
        pcwt_bit_model models[PCWT_VMAP_MODELS];
        pcwt_vmap_models_init(models);
        pcwt_rc_dec rc;
        pcwt_rc_dec_init(&rc, a, alen);
        uint32_t ctx = 1;
        int bad = 0;
        int64_t v = first;
        for (uint32_t i = 1; i < count && !bad; i++) {
            const uint32_t g = get_gap(&rc, models, ctx, &bad);
            v += (int64_t)g + 1;
            if (v > PCWT_VMAP_MAX)
                bad = 1;
            else
                m->values[m->count++] = (int32_t)v;
            ctx = g != 0;
        }
        if (bad || rc.code >= rc.range || pcwt_rc_dec_taken(&rc, a) < alen || a[alen - 1] == 0) {
            m->count = 0;
            pcwt_set_error(err, err_size, "value map: corrupt value stream");
            return PCWT_ERR_CORRUPT;
        }
    }
    *used = pos + alen;
    return PCWT_OK;
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
