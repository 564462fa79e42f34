/* options.c - the options of the encoder and decoder handles: their names, ranges and value
 * names (one table), parsing them from text, checking and comparing encoder parameters. The
 * handles' setters (encoder.c, decoder.c) apply them. */
#include "options.h"

#include "plan.h"
#include "status.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct option_def {
    pcwt_option option;
    const char *name;
    unsigned owners;
    int64_t min, max;
    const char *const *values; /* value names by number (NULL entries: no name); NULL: a number */
    size_t value_count;
} option_def;

static const char *const codec_names[] = {"pcwt", "jpegls"};
static const char *const profile_names[] = {"baseline", "entropy", "compact"};
static const char *const colour_names[] = {"auto", "none", "rct"};
static const char *const low_bits_names[] = {"auto", "off", "on"};
static const char *const value_map_names[] = {"auto", "off", "on"};
static const char *const offset_names[] = {"auto", "off", "on"};
static const char *const second_bit_names[] = {"on", "off"};
static const char *const lifting_names[] = {"auto", "rows", "columns"};
static const char *const level1_names[] = {"53", "auto", "511"};
static const char *const interleave_names[] = {"none", "line", "sample"};
static const char *const backend_names[] = {"auto", "cpu", "gpu"};

#define ENUM_VALUES(a) a, sizeof a / sizeof a[0]
#define ENC PCWT_OPTION_ENCODER
#define DEC PCWT_OPTION_DECODER

static const option_def option_defs[] = {
    {PCWT_OPT_CODEC, "codec", ENC, 0, 1, ENUM_VALUES(codec_names)},
    {PCWT_OPT_PROFILE, "profile", ENC, 0, 2, ENUM_VALUES(profile_names)},
    {PCWT_OPT_LEVELS, "levels", ENC, 0, PCWT_MAX_LEVELS, NULL, 0},
    {PCWT_OPT_GROUP_ROWS, "group-rows", ENC, 0, PCWT_MAX_GROUP, NULL, 0},
    {PCWT_OPT_GROUP_COLS, "group-cols", ENC, 0, PCWT_MAX_GROUP, NULL, 0},
    {PCWT_OPT_MIN_LL, "min-ll", ENC, 1, 65535, NULL, 0},
    {PCWT_OPT_COLOUR_TRANSFORM, "colour-transform", ENC, 0, 2, ENUM_VALUES(colour_names)},
    {PCWT_OPT_LOW_BITS, "low-bits", ENC, 0, 2, ENUM_VALUES(low_bits_names)},
    {PCWT_OPT_LIFTING_ORDER, "lifting", ENC, 0, 2, ENUM_VALUES(lifting_names)},
    {PCWT_OPT_JPEGLS_INTERLEAVE, "jpegls-interleave", ENC, 0, 2, ENUM_VALUES(interleave_names)},
    {PCWT_OPT_JPEGLS_RESTART, "jpegls-restart", ENC, 0, 65535, NULL, 0},
    {PCWT_OPT_BACKEND, "backend", ENC | DEC, 0, 2, ENUM_VALUES(backend_names)},
    {PCWT_OPT_DEVICE, "device", ENC | DEC, 0, INT_MAX, NULL, 0},
    {PCWT_OPT_MAX_SAMPLES, "max-samples", DEC, 1, INT64_MAX, NULL, 0},
    {PCWT_OPT_MEMORY_LIMIT, "memory-limit", DEC, 0, INT64_MAX, NULL, 0},
    {PCWT_OPT_VALUE_MAP, "value-map", ENC, 0, 2, ENUM_VALUES(value_map_names)},
    {PCWT_OPT_LEVEL1_FILTER, "level1-filter", ENC, 0, 2, ENUM_VALUES(level1_names)},
    {PCWT_OPT_OFFSET, "offset", ENC, 0, 2, ENUM_VALUES(offset_names)},
    {PCWT_OPT_GPU_CHUNKS, "gpu-chunks", ENC | DEC, 0, 65536, NULL, 0},
    {PCWT_OPT_GPU_MEMORY_LIMIT, "gpu-memory-limit", ENC | DEC, 0, INT64_MAX, NULL, 0},
    {PCWT_OPT_SECOND_BIT, "second-bit", ENC, 0, 1, ENUM_VALUES(second_bit_names)},
    {PCWT_OPT_GPU_BIN_ARENA, "gpu-bin-arena", ENC, 0, INT64_MAX, NULL, 0},
};

static const option_def *find(pcwt_option option)
{
    for (size_t i = 0; i < sizeof option_defs / sizeof option_defs[0]; i++)
        if (option_defs[i].option == option)
            return &option_defs[i];
    return NULL;
}

unsigned pcwt_option_owners(pcwt_option option)
{
    const option_def *d = find(option);
    return d ? d->owners : 0u;
}

int pcwt_option_is_coding(pcwt_option option)
{
    return pcwt_option_owners(option) == PCWT_OPTION_ENCODER && !pcwt_gpu_limits_has(option);
}

const char *pcwt_option_name(pcwt_option option)
{
    const option_def *d = find(option);
    return d ? d->name : NULL;
}

const char *pcwt_option_value_name(pcwt_option option, int64_t value)
{
    const option_def *d = find(option);
    if (!d || !d->values || value < 0 || (uint64_t)value >= d->value_count)
        return NULL;
    return d->values[value];
}

size_t pcwt_option_choices(pcwt_option option, const char *sep, char *buf, size_t size)
{
    const option_def *d = find(option);
    size_t len = 0;
    if (buf && size)
        buf[0] = 0;
    if (!d || !d->values)
        return 0;
    if (!sep)
        sep = "|";
    for (size_t i = 0; i < d->value_count; i++) {
        const char *parts[2] = {i ? sep : "", d->values[i]};
        for (int k = 0; k < 2; k++) {
            const size_t n = strlen(parts[k]);
            if (buf && len + 1 < size) {
                const size_t room = size - 1 - len;
                memcpy(buf + len, parts[k], n < room ? n : room);
                buf[len + (n < room ? n : room)] = 0;
            }
            len += n;
        }
    }
    return len;
}

static const char *name_or_unknown(pcwt_option option, int64_t value)
{
    const char *n = pcwt_option_value_name(option, value);
    return n ? n : "unknown";
}

const char *pcwt_profile_name(pcwt_profile profile)
{
    return name_or_unknown(PCWT_OPT_PROFILE, (int64_t)profile);
}

/* JPEG 2000 is a codec of the decoder only, so no value of the encoder's codec option */
const char *pcwt_codec_name(pcwt_codec codec)
{
    return codec == PCWT_CODEC_J2K ? "jpeg2000" : name_or_unknown(PCWT_OPT_CODEC, (int64_t)codec);
}

const char *pcwt_backend_name(pcwt_backend backend)
{
    return name_or_unknown(PCWT_OPT_BACKEND, (int64_t)backend);
}

pcwt_status pcwt_option_from_name(const char *name, pcwt_option *option)
{
    if (!name || !option)
        return PCWT_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < sizeof option_defs / sizeof option_defs[0]; i++)
        if (strcmp(option_defs[i].name, name) == 0) {
            *option = option_defs[i].option;
            return PCWT_OK;
        }
    return PCWT_ERR_INVALID_ARGUMENT;
}

/* Decimal digits only, no sign, no spaces. */
static int parse_number(const char *text, int64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return 0;
    uint64_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        if (v > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10u)
            return 0;
        v = v * 10u + (uint64_t)(*p - '0');
    }
    *out = (int64_t)v;
    return 1;
}

static pcwt_status parse_value(const option_def *d, const char *value, int64_t *out)
{
    if (!value)
        return PCWT_ERR_INVALID_ARGUMENT;
    if (d->values)
        for (size_t i = 0; i < d->value_count; i++)
            if (d->values[i] && strcmp(d->values[i], value) == 0) {
                *out = (int64_t)i;
                return PCWT_OK;
            }
    int64_t v;
    if (!parse_number(value, &v) || v < d->min || v > d->max)
        return PCWT_ERR_INVALID_ARGUMENT;
    *out = v;
    return PCWT_OK;
}

pcwt_status pcwt_option_parse(pcwt_option option, const char *value, int64_t *out)
{
    const option_def *d = find(option);
    if (!d || !out)
        return PCWT_ERR_INVALID_ARGUMENT;
    return parse_value(d, value, out);
}

/* "what is accepted" for a message: the value names, or the range. */
static void expected(const option_def *d, char *buf, size_t size)
{
    if (d->values) {
        size_t len = 0;
        buf[0] = 0;
        for (size_t i = 0; i < d->value_count && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                    i == 0 ? "" : i + 1 == d->value_count ? " or " : ", ",
                                    d->values[i]);
    } else {
        snprintf(buf, size, "a number in %lld..%lld", (long long)d->min, (long long)d->max);
    }
}

pcwt_status pcwt_option_parse_named(const char *name, const char *value, pcwt_named_value *out,
                                    char *err, size_t err_size)
{
    if (!name || !value || !out) {
        pcwt_set_error(err, err_size, "NULL option name or value");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    out->count = 0;
    if (strcmp(name, "group") == 0) {
        /* ROWSxCOLS, or N for NxN, each 1..PCWT_MAX_GROUP */
        char rows[24], *x;
        int64_t r = 0, c = 0;
        const size_t n = strlen(value);
        int ok = n < sizeof rows;
        if (ok) {
            memcpy(rows, value, n + 1);
            x = strpbrk(rows, "xX");
            if (x)
                *x = 0;
            ok = parse_number(rows, &r) && r >= 1 && r <= PCWT_MAX_GROUP;
            c = r;
            if (ok && x)
                ok = parse_number(x + 1, &c) && c >= 1 && c <= PCWT_MAX_GROUP;
        }
        if (!ok) {
            pcwt_set_error(err, err_size, "group '%s': expected RxC with R and C in 1..%d", value,
                           PCWT_MAX_GROUP);
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        out->count = 2;
        out->option[0] = PCWT_OPT_GROUP_ROWS;
        out->value[0] = r;
        out->option[1] = PCWT_OPT_GROUP_COLS;
        out->value[1] = c;
        return PCWT_OK;
    }
    pcwt_option o;
    if (pcwt_option_from_name(name, &o) != PCWT_OK) {
        pcwt_set_error(err, err_size, "unknown option '%s'", name);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const option_def *d = find(o);
    int64_t v;
    if (parse_value(d, value, &v) != PCWT_OK) {
        char what[160];
        expected(d, what, sizeof what);
        pcwt_set_error(err, err_size, "%s '%s': expected %s", name, value, what);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    out->count = 1;
    out->option[0] = o;
    out->value[0] = v;
    return PCWT_OK;
}

pcwt_status pcwt_option_check(pcwt_option option, int64_t value, char *err, size_t err_size)
{
    const option_def *d = find(option);
    if (!d) {
        pcwt_set_error(err, err_size, "unknown option %d", (int)option);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (value >= d->min && value <= d->max)
        return PCWT_OK;
    if (option == PCWT_OPT_PROFILE) {
        pcwt_set_error(err, err_size, "profile %lld not supported", (long long)value);
        return PCWT_ERR_UNSUPPORTED;
    }
    char what[160];
    expected(d, what, sizeof what);
    pcwt_set_error(err, err_size, "%s %lld out of range: expected %s", d->name, (long long)value,
                   what);
    return PCWT_ERR_INVALID_ARGUMENT;
}

int pcwt_gpu_limits_has(pcwt_option option)
{
    return option == PCWT_OPT_GPU_CHUNKS || option == PCWT_OPT_GPU_MEMORY_LIMIT || option == PCWT_OPT_GPU_BIN_ARENA;
}

pcwt_status pcwt_gpu_limits_set(pcwt_gpu_limits *l, pcwt_option option, int64_t value, char *err, size_t err_size)
{
    const pcwt_status st = pcwt_option_check(option, value, err, err_size);
    if (st != PCWT_OK)
        return st;
    if (option == PCWT_OPT_GPU_CHUNKS)
        l->chunks = (uint32_t)value;
    else if (option == PCWT_OPT_GPU_BIN_ARENA)
        l->bin_arena = (uint64_t)value;
    else
        l->memory_limit = (uint64_t)value;
    return PCWT_OK;
}

int64_t pcwt_gpu_limits_get(const pcwt_gpu_limits *l, pcwt_option option)
{
    return option == PCWT_OPT_GPU_CHUNKS      ? (int64_t)l->chunks
           : option == PCWT_OPT_GPU_BIN_ARENA ? (int64_t)l->bin_arena
                                              : (int64_t)l->memory_limit;
}

pcwt_status pcwt_params_set(pcwt_encode_params *p, pcwt_option option, int64_t value, char *err,
                            size_t err_size)
{
    const option_def *d = find(option);
    if (!d || !(d->owners & PCWT_OPTION_ENCODER)) {
        pcwt_set_error(err, err_size, "option %d is not an encoder option", (int)option);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const pcwt_status in_range = pcwt_option_check(option, value, err, err_size);
    if (in_range != PCWT_OK)
        return in_range;
    const uint32_t u = (uint32_t)value;
    switch (option) {
    case PCWT_OPT_CODEC: p->codec = (pcwt_codec)value; break;
    case PCWT_OPT_PROFILE: p->profile = (pcwt_profile)value; break;
    case PCWT_OPT_LEVELS: p->levels = u; break;
    case PCWT_OPT_GROUP_ROWS: p->group_rows = u; break;
    case PCWT_OPT_GROUP_COLS: p->group_cols = u; break;
    case PCWT_OPT_MIN_LL: p->min_ll = u; break;
    case PCWT_OPT_COLOUR_TRANSFORM: p->colour_transform = (pcwt_colour_transform)value; break;
    case PCWT_OPT_LOW_BITS: p->low_bits = (pcwt_low_bits)value; break;
    case PCWT_OPT_LIFTING_ORDER: p->lifting_order = (pcwt_lifting_order)value; break;
    case PCWT_OPT_JPEGLS_INTERLEAVE: p->jpegls_interleave = u; break;
    case PCWT_OPT_JPEGLS_RESTART: p->jpegls_restart_interval = u; break;
    case PCWT_OPT_BACKEND: p->backend = (pcwt_backend)value; break;
    case PCWT_OPT_VALUE_MAP: p->value_map = (pcwt_value_map_mode)value; break;
    case PCWT_OPT_LEVEL1_FILTER: p->level1_filter = (pcwt_level1_filter)value; break;
    case PCWT_OPT_OFFSET: p->offset = (pcwt_offset_mode)value; break;
    case PCWT_OPT_SECOND_BIT: p->second_bit = (pcwt_second_bit)value; break;
    default:
        pcwt_set_error(err, err_size, "option '%s' is set on the handle", d->name);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    return PCWT_OK;
}

pcwt_status pcwt_params_get(const pcwt_encode_params *p, pcwt_option option, int64_t *v)
{
    switch (option) {
    case PCWT_OPT_CODEC: *v = p->codec; break;
    case PCWT_OPT_PROFILE: *v = p->profile; break;
    case PCWT_OPT_LEVELS: *v = p->levels; break;
    case PCWT_OPT_GROUP_ROWS: *v = p->group_rows; break;
    case PCWT_OPT_GROUP_COLS: *v = p->group_cols; break;
    case PCWT_OPT_MIN_LL: *v = p->min_ll; break;
    case PCWT_OPT_COLOUR_TRANSFORM: *v = p->colour_transform; break;
    case PCWT_OPT_LOW_BITS: *v = p->low_bits; break;
    case PCWT_OPT_LIFTING_ORDER: *v = p->lifting_order; break;
    case PCWT_OPT_JPEGLS_INTERLEAVE: *v = p->jpegls_interleave; break;
    case PCWT_OPT_JPEGLS_RESTART: *v = p->jpegls_restart_interval; break;
    case PCWT_OPT_BACKEND: *v = p->backend; break;
    case PCWT_OPT_VALUE_MAP: *v = p->value_map; break;
    case PCWT_OPT_LEVEL1_FILTER: *v = p->level1_filter; break;
    case PCWT_OPT_OFFSET: *v = p->offset; break;
    case PCWT_OPT_SECOND_BIT: *v = p->second_bit; break;
    default: return PCWT_ERR_INVALID_ARGUMENT;
    }
    return PCWT_OK;
}

pcwt_status pcwt_params_check(const pcwt_encode_params *p, char *err, size_t es)
{
    if (p->levels > PCWT_MAX_LEVELS) {
        pcwt_set_error(err, es, "levels %u out of range 0..%d", p->levels, PCWT_MAX_LEVELS);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if ((p->group_rows == 0) != (p->group_cols == 0) || p->group_rows > PCWT_MAX_GROUP ||
        p->group_cols > PCWT_MAX_GROUP) {
        pcwt_set_error(err, es, "group size %ux%u out of range 1..%d (0x0: the profile's size)",
                       p->group_rows, p->group_cols, PCWT_MAX_GROUP);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->min_ll < 1) {
        pcwt_set_error(err, es, "min_ll must be at least 1");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->codec != PCWT_CODEC_PCWT && p->codec != PCWT_CODEC_JPEGLS) {
        pcwt_set_error(err, es, "unknown codec %d", (int)p->codec);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->colour_transform != PCWT_COLOUR_AUTO && p->colour_transform != PCWT_COLOUR_NONE &&
        p->colour_transform != PCWT_COLOUR_RCT) {
        pcwt_set_error(err, es, "colour transform %d out of range 0..2", (int)p->colour_transform);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->low_bits != PCWT_LOW_BITS_AUTO && p->low_bits != PCWT_LOW_BITS_OFF &&
        p->low_bits != PCWT_LOW_BITS_ON) {
        pcwt_set_error(err, es, "low bits %d out of range 0..2", (int)p->low_bits);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->value_map != PCWT_VALUE_MAP_AUTO && p->value_map != PCWT_VALUE_MAP_OFF &&
        p->value_map != PCWT_VALUE_MAP_ON) {
        pcwt_set_error(err, es, "value map %d out of range 0..2", (int)p->value_map);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->level1_filter != PCWT_LEVEL1_53 && p->level1_filter != PCWT_LEVEL1_AUTO &&
        p->level1_filter != PCWT_LEVEL1_511) {
        pcwt_set_error(err, es, "level-1 filter %d out of range 0..2", (int)p->level1_filter);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->offset != PCWT_OFFSET_AUTO && p->offset != PCWT_OFFSET_OFF && p->offset != PCWT_OFFSET_ON) {
        pcwt_set_error(err, es, "offset %d out of range 0..2", (int)p->offset);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->second_bit != PCWT_SECOND_BIT_ON && p->second_bit != PCWT_SECOND_BIT_OFF) {
        pcwt_set_error(err, es, "second bit %d out of range 0..1", (int)p->second_bit);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->lifting_order != PCWT_LIFTING_AUTO && p->lifting_order != PCWT_LIFTING_ROWS_FIRST &&
        p->lifting_order != PCWT_LIFTING_COLUMNS_FIRST) {
        pcwt_set_error(err, es, "lifting order %d out of range 0..2", (int)p->lifting_order);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (p->profile != PCWT_PROFILE_BASELINE && p->profile != PCWT_PROFILE_ENTROPY &&
        p->profile != PCWT_PROFILE_COMPACT) {
        pcwt_set_error(err, es, "profile %d not supported", (int)p->profile);
        return PCWT_ERR_UNSUPPORTED;
    }
    return PCWT_OK;
}

int pcwt_params_same_coding(const pcwt_encode_params *a, const pcwt_encode_params *b)
{
    uint32_t ar, ac, br, bc;
    pcwt_group_size_wanted(a, &ar, &ac);
    pcwt_group_size_wanted(b, &br, &bc);
    return a->codec == b->codec && a->levels == b->levels && ar == br && ac == bc &&
           a->min_ll == b->min_ll && a->profile == b->profile &&
           a->colour_transform == b->colour_transform && a->low_bits == b->low_bits &&
           a->lifting_order == b->lifting_order && a->value_map == b->value_map &&
           a->level1_filter == b->level1_filter && a->offset == b->offset &&
           a->second_bit == b->second_bit &&
           a->jpegls_interleave == b->jpegls_interleave &&
           a->jpegls_restart_interval == b->jpegls_restart_interval;
}

pcwt_status pcwt_header_plane(const pcwt_header_info *info, uint32_t index, pcwt_plane_info *out)
{
    if (!info || !out || index >= info->plane_count || index >= PCWT_MAX_PLANES)
        return PCWT_ERR_INVALID_ARGUMENT;
    *out = info->planes[index];
    return PCWT_OK;
}
