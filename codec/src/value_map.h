/* value_map.h - value compaction of a plane in the entropy profile (plane option bit 1,
 * docs/FORMAT.md Sec. 5.5): the sorted set of the values that occur in the plane is coded at the
 * start of its payload, and the plane holds each sample's rank in that set. Where an image uses a
 * sparse subset of its range (a rescaled or windowed radiograph, CT padding far from the body's
 * values), the ranks are a smoother signal than the values and the transform codes them in fewer
 * bits. value_map.c builds, decides, writes and reads maps; the format rules that a GPU twin must
 * share (limits, models, the binarisation of a gap) are the inline functions here. */
#ifndef PCWT_VALUE_MAP_H
#define PCWT_VALUE_MAP_H

#include "ec_record.h"
#include "hostdev.h"
#include "pcwt.h"
#include "rangecoder.h"

#include <stddef.h>
#include <stdint.h>

/* Every value of any plane (samples, colour-transform differences, high bits) lies in
 * [PCWT_VMAP_MIN, PCWT_VMAP_MAX], so a map has at most PCWT_VMAP_MAX_COUNT values. */
#define PCWT_VMAP_MIN (-131072)
#define PCWT_VMAP_MAX 131071
#define PCWT_VMAP_MAX_COUNT 262144u

/* Gap models (Sec. 5.5): PREFIX[c][k] (c = 0 after a gap of 0, else 1; k = 0..PCWT_VMAP_PREFIX-1)
 * then SUFFIX[n][j] (n = 1..PCWT_VMAP_PREFIX, j = 0 for the first suffix bit, 1 for the others). */
#define PCWT_VMAP_PREFIX 18u
#define PCWT_VMAP_MODELS (2u * PCWT_VMAP_PREFIX + 2u * (PCWT_VMAP_PREFIX + 1u))
#define PCWT_VMAP_P0 16384u

static inline PCWT_HD pcwt_bit_model *pcwt_vmap_prefix_model(pcwt_bit_model *m, uint32_t ctx, uint32_t k)
{
    return &m[ctx * PCWT_VMAP_PREFIX + (k < PCWT_VMAP_PREFIX - 1u ? k : PCWT_VMAP_PREFIX - 1u)];
}

static inline PCWT_HD pcwt_bit_model *pcwt_vmap_suffix_model(pcwt_bit_model *m, uint32_t n, uint32_t j)
{
    const uint32_t nn = n < PCWT_VMAP_PREFIX ? n : PCWT_VMAP_PREFIX;
    return &m[2u * PCWT_VMAP_PREFIX + 2u * nn + (j ? 1u : 0u)];
}

static inline PCWT_HD void pcwt_vmap_models_init(pcwt_bit_model *m)
{
    for (uint32_t i = 0; i < PCWT_VMAP_MODELS; i++)
        pcwt_model_init(&m[i], PCWT_VMAP_P0, 3u);
}

/* One gap g >= 0 (value minus previous value minus 1), Exp-Golomb binarised: with x = g + 1 and
 * n = floor(log2 x), n bits 1 and a bit 0 with the PREFIX models, then the n bits of x below its
 * leading 1, most significant first, with SUFFIX[n]. */
static inline PCWT_HD void pcwt_vmap_put_gap(pcwt_rc_enc *e, pcwt_bit_model *m, uint32_t ctx, uint32_t g)
{
    const uint32_t x = g + 1u;
    const uint32_t n = (uint32_t)PCWT_LOG2(x);
    for (uint32_t k = 0; k < n; k++)
        pcwt_rc_encode(e, pcwt_vmap_prefix_model(m, ctx, k), 1u);
    pcwt_rc_encode(e, pcwt_vmap_prefix_model(m, ctx, n), 0u);
    for (uint32_t j = 0; j < n; j++)
        pcwt_rc_encode(e, pcwt_vmap_suffix_model(m, n, j), (x >> (n - 1u - j)) & 1u);
}

/* Reads one gap written by pcwt_vmap_put_gap; *bad when its prefix is longer than any gap of a
 * valid map needs. */
static inline PCWT_HD uint32_t pcwt_vmap_get_gap(pcwt_rc_dec *d, pcwt_bit_model *m, uint32_t ctx, int *bad)
{
    uint32_t n = 0;
    while (pcwt_rc_decode(d, pcwt_vmap_prefix_model(m, ctx, n))) {
        if (++n > PCWT_VMAP_PREFIX) {
            *bad = 1;
            return 0;
        }
    }
    uint32_t x = 1;
    for (uint32_t j = 0; j < n; j++)
        x = (x << 1) | pcwt_rc_decode(d, pcwt_vmap_suffix_model(m, n, j));
    return x - 1u;
}

static inline PCWT_HD uint32_t pcwt_vmap_zigzag(int32_t v)
{
    return v < 0 ? 2u * (uint32_t)(-(int64_t)v) - 1u : 2u * (uint32_t)v;
}

static inline PCWT_HD int32_t pcwt_vmap_unzigzag(uint32_t z)
{
    return (z & 1u) ? (int32_t)(-(int64_t)((z >> 1) + 1u)) : (int32_t)(z >> 1);
}

/* The encoder's decision (integer arithmetic, one rule for both backends) from a map's summary:
 * count values from first to last, max_step the largest difference of two consecutive ones. A
 * plane is compacted when its values are at most 7/8 of their span, or the span holds a gap of
 * more than 1/16 of it (a padding value far from the rest); a plane of one value always. */
static inline PCWT_HD int pcwt_value_map_wanted_summary(uint32_t count, int32_t first, int32_t last,
                                                        uint32_t max_step)
{
    if (count < 2)
        return count == 1;
    const uint64_t span = (uint64_t)((int64_t)last - first) + 1u;
    if ((uint64_t)count * 8u <= span * 7u)
        return 1;
    return (uint64_t)max_step * 16u > span;
}

/* The coded map: LEB128 count, LEB128 zigzag(first value), LEB128 A, then the A bytes of the gaps'
 * range-coder stream. Writers code the stream PCWT_VMAP_HEAD_MAX bytes into the destination, then
 * put the header in front of it (pcwt_vmap_put_head); returns the map's length. */
#define PCWT_VMAP_HEAD_MAX 11u
static inline PCWT_HD size_t pcwt_vmap_put_head(uint8_t *dst, uint32_t count, int32_t first, size_t alen)
{
    const size_t head = pcwt_leb128_size(count) + pcwt_leb128_size(pcwt_vmap_zigzag(first)) +
                        pcwt_leb128_size(alen);
    for (size_t i = 0; i < alen; i++) /* forward: head <= PCWT_VMAP_HEAD_MAX */
        dst[head + i] = dst[PCWT_VMAP_HEAD_MAX + i];
    uint8_t *p = pcwt_leb128_put(dst, count);
    p = pcwt_leb128_put(p, pcwt_vmap_zigzag(first));
    pcwt_leb128_put(p, alen);
    return head + alen;
}

/* Why a coded map is refused (pcwt_vmap_decode); the CPU words each in its message. */
enum {
    PCWT_VMAP_OK = 0,
    PCWT_VMAP_BAD_HEAD,   /* truncated or malformed header */
    PCWT_VMAP_BAD_COUNT,  /* 0 values, or more than the plane holds */
    PCWT_VMAP_BAD_FIRST,  /* values outside the planes' range */
    PCWT_VMAP_BAD_LENGTH, /* the stream does not fit the payload */
    PCWT_VMAP_BAD_STREAM  /* a corrupt value stream */
};

/* The header of a coded map at the start of a payload of size bytes: *count, *first, the stream's
 * length *alen and where it starts *pos, checked against max_count values (the plane's samples). */
static inline PCWT_HD int pcwt_vmap_read_head(const uint8_t *src, size_t size, uint64_t max_count,
                                              uint32_t *count, int64_t *first, uint32_t *alen, size_t *pos)
{
    uint32_t z = 0;
    *pos = 0;
    if (!pcwt_leb128_get(src, size, pos, count) || !pcwt_leb128_get(src, size, pos, &z) ||
        !pcwt_leb128_get(src, size, pos, alen))
        return PCWT_VMAP_BAD_HEAD;
    *first = (int64_t)pcwt_vmap_unzigzag(z);
    if (*count == 0 || *count > PCWT_VMAP_MAX_COUNT || *count > max_count)
        return PCWT_VMAP_BAD_COUNT;
    if (*first < PCWT_VMAP_MIN || *first + (int64_t)*count - 1 > PCWT_VMAP_MAX)
        return PCWT_VMAP_BAD_FIRST;
    if (*alen > size - *pos || (*count == 1 && *alen != 0) || (*count > 1 && *alen == 0))
        return PCWT_VMAP_BAD_LENGTH;
    return PCWT_VMAP_OK;
}

/* The count values of a map whose header pcwt_vmap_read_head accepted, from its stream a of alen
 * bytes, into values (room for count). */
static inline PCWT_HD int pcwt_vmap_read_values(const uint8_t *a, uint32_t alen, uint32_t count,
                                                int64_t first, int32_t *values)
{
    values[0] = (int32_t)first;
    if (count < 2)
        return PCWT_VMAP_OK;
    pcwt_bit_model models[PCWT_VMAP_MODELS];
    pcwt_vmap_models_init(models);
    pcwt_rc_dec rc;
    pcwt_rc_dec_init(&rc, a, alen);
    uint32_t ctx = 1;
    int bad = 0;
    int64_t v = first;
    for (uint32_t i = 1; i < count && !bad; i++) {
        const uint32_t g = pcwt_vmap_get_gap(&rc, models, ctx, &bad);
        v += (int64_t)g + 1;
        if (v > PCWT_VMAP_MAX)
            bad = 1;
        else
            values[i] = (int32_t)v;
        ctx = g != 0;
    }
    if (bad || rc.code >= rc.range || pcwt_rc_dec_taken(&rc, a) < alen || a[alen - 1] == 0)
        return PCWT_VMAP_BAD_STREAM;
    return PCWT_VMAP_OK;
}

/* A plane's map: count sorted distinct values. */
typedef struct pcwt_value_map {
    int32_t *values;
    uint32_t count;
    uint32_t cap;
} pcwt_value_map;

void pcwt_value_map_free(pcwt_value_map *m);

/* The values that occur in the rows x cols samples of a plane (row pitch stride) into m; the
 * samples must lie in [PCWT_VMAP_MIN, PCWT_VMAP_MAX]. PCWT_ERR_OUT_OF_MEMORY possible. */
pcwt_status pcwt_value_map_build(pcwt_value_map *m, const int32_t *plane, size_t stride, uint32_t rows,
                                 uint32_t cols);

/* The same for a value plane (kind 0, no colour transform) from the stored values u that occur in
 * it (used, pcwt_offset_mark_used: 2^bits bytes): the values (u - r0) mod 2^bits where the plane
 * takes the modular offset r0 (offset), else the samples' values (sign-extended when signed). */
pcwt_status pcwt_value_map_from_used(pcwt_value_map *m, const uint8_t *used, uint32_t bits,
                                     int is_signed, int offset, uint32_t r0);

/* Whether the encoder compacts a plane with map m (integer arithmetic, the same on every
 * backend): the values used are at most 7/8 of their span, or the span holds a gap of more than
 * 1/16 of it (a padding value far from the rest). */
int pcwt_value_map_wanted(const pcwt_value_map *m);

/* The most bytes a coded map of count values takes: its header (at most 3 + 3 + 5 bytes) and a
 * stream of at most 2 * 18 + 1 bins per gap, each at most 15 bits, and the flush. A decoder adds
 * it, for the plane's sample count (at most PCWT_VMAP_MAX_COUNT), to a plane's payload limit. */
static inline PCWT_HD uint64_t pcwt_value_map_max_bytes(uint64_t count)
{
    if (count > PCWT_VMAP_MAX_COUNT)
        count = PCWT_VMAP_MAX_COUNT;
    return 11u + (count * (2u * PCWT_VMAP_PREFIX + 1u) * 15u + 7u) / 8u + 8u;
}
/* Bytes of m coded, at most. */
size_t pcwt_value_map_bound(const pcwt_value_map *m);
/* Writes the coded map to dst (cap bytes); *written its length. PCWT_ERR_BUFFER_TOO_SMALL. */
pcwt_status pcwt_value_map_write(const pcwt_value_map *m, uint8_t *dst, size_t cap, size_t *written);

/* Replaces each of the rows x cols samples by its rank in m (every sample must be in m). */
void pcwt_value_map_to_ranks(const pcwt_value_map *m, int32_t *plane, size_t stride, uint32_t rows,
                             uint32_t cols);

/* The same for a value plane whose map pcwt_value_map_from_used made, its offset r0 (0 when none)
 * not applied yet: each sample v becomes the rank of (v - r0) mod 2^bits, the offset and the ranks
 * in one pass. 0 when out of memory (then nothing is changed). */
int pcwt_value_map_to_ranks_mod(const pcwt_value_map *m, int32_t *plane, size_t stride, uint32_t rows,
                                uint32_t cols, uint32_t bits, uint32_t r0);

/* Reads a coded map from the start of a payload of size bytes; *used its length. max_count: the
 * most values the plane can hold (its samples). PCWT_ERR_CORRUPT_STREAM with a message in err,
 * PCWT_ERR_OUT_OF_MEMORY. */
pcwt_status pcwt_value_map_read(pcwt_value_map *m, const uint8_t *src, size_t size, uint64_t max_count,
                                size_t *used, char *err, size_t err_size);

/* Replaces each rank by its value; a rank outside the map is PCWT_ERR_CORRUPT_STREAM. */
pcwt_status pcwt_value_map_from_ranks(const pcwt_value_map *m, int32_t *plane, size_t stride, uint32_t rows,
                                      uint32_t cols, char *err, size_t err_size);

#endif /* PCWT_VALUE_MAP_H */
