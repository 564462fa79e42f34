/* encoder.c - sequences the encoder stages for each plane: samples -> B-LDWT+B -> MQD/Qmax ->
 * element and group coding, then writes the header. The stages live in their own files. */
#include "backend.h"
#include "container.h"
#include "dwt53.h"
#include "group_coder.h"
#include "group_coder_ec.h"
#include "jpegls_context.h"
#include "jpegls_encoder.h"
#include "mqd.h"
#include "offset.h"
#include "options.h"
#include "planes.h"
#include "status.h"
#include "value_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PCWT_HAVE_CUDA
#include "gpu_backend.h"
#endif

struct pcwt_encoder {
    pcwt_encode_params req;    /* the options as set (pcwt_encoder_get_option) */
    pcwt_encode_params params; /* req resolved (the group size): what the frames are coded with */
    pcwt_backend env_backend; /* PCWT_BACKEND at creation */
    pcwt_backend backend;     /* CPU or GPU; AUTO until the first call that codes (encoder_backend) */
    pcwt_pyramid pyr;         /* reused across calls */
#ifdef PCWT_HAVE_CUDA
    pcwt_gpu *gpu; /* created on first use */
#endif
    int device; /* pcwt_encoder_set_device */
    pcwt_gpu_limits gpu_limits; /* PCWT_OPT_GPU_CHUNKS, PCWT_OPT_GPU_MEMORY_LIMIT */
    jls_qlut_cache jls_lut; /* JPEG-LS gradient table, kept between frames */
    pcwt_value_map vmap;    /* the value map of the plane being coded, reused */
    char err[256];
};

void pcwt_encode_params_default(pcwt_encode_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->codec = PCWT_CODEC_PCWT;
    p->levels = PCWT_DEFAULT_LEVELS;
    p->group_rows = 0; /* the profile's size */
    p->group_cols = 0;
    p->min_ll = PCWT_DEFAULT_MIN_LL;
    /* the smallest, and coded at GPU speed by the GPU backend, which builds its value maps on the
     * device; the entropy and baseline profiles by name */
    p->profile = PCWT_PROFILE_COMPACT;
    p->backend = PCWT_BACKEND_AUTO;
    /* per plane, 5/11-C at level 1 where it is smaller; the GPU backend decides on the device */
    p->level1_filter = PCWT_LEVEL1_AUTO;
    /* per plane, where the estimate says the offset pays; the GPU backend decides alike */
    p->offset = PCWT_OFFSET_AUTO;
}

/* The handle keeps the group size it codes with. */
static void resolve_group_size(pcwt_encode_params *p)
{
    pcwt_group_size_wanted(p, &p->group_rows, &p->group_cols);
}

pcwt_encoder *pcwt_encoder_create(void)
{
    pcwt_encoder *e = calloc(1, sizeof *e);
    if (e) {
        pcwt_encode_params_default(&e->req);
        e->params = e->req;
        resolve_group_size(&e->params);
        e->env_backend = pcwt_backend_from_env();
        e->backend = pcwt_backend_choice(PCWT_BACKEND_AUTO, e->env_backend);
    }
    return e;
}

void pcwt_encoder_destroy(pcwt_encoder *e)
{
    if (!e)
        return;
    pcwt_pyramid_free(&e->pyr);
    jls_qlut_cache_free(&e->jls_lut);
    pcwt_value_map_free(&e->vmap);
#ifdef PCWT_HAVE_CUDA
    pcwt_gpu_destroy(e->gpu);
#endif
    free(e);
}

const char *pcwt_encoder_last_error(const pcwt_encoder *e) { return e ? e->err : ""; }

pcwt_status pcwt_encoder_set_device(pcwt_encoder *e, int device)
{
    if (!e)
        return PCWT_ERR_INVALID_ARGUMENT;
    e->err[0] = 0;
    const pcwt_status st = pcwt_device_check(device, e->err, sizeof e->err);
    if (st != PCWT_OK)
        return st;
#ifdef PCWT_HAVE_CUDA
    if (e->gpu && device != e->device) {
        pcwt_gpu_destroy(e->gpu);
        e->gpu = NULL;
    }
#endif
    e->device = device;
    return PCWT_OK;
}

/* The handle codes with options r from now on (checked; the backend resolved into b). */
static void apply_options(pcwt_encoder *e, const pcwt_encode_params *r, pcwt_backend b)
{
    e->req = *r;
    e->params = *r;
    resolve_group_size(&e->params);
    e->backend = b;
}

pcwt_status pcwt_encoder_set_params(pcwt_encoder *e, const pcwt_encode_params *p)
{
    if (!e)
        return PCWT_ERR_INVALID_ARGUMENT;
    e->err[0] = 0;
    if (!p) {
        pcwt_set_error(e->err, sizeof e->err, "no parameters");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    pcwt_status st = pcwt_params_check(p, e->err, sizeof e->err);
    if (st != PCWT_OK)
        return st;
    pcwt_backend b;
    st = pcwt_backend_select(p->backend, e->env_backend, &b, e->err, sizeof e->err);
    if (st != PCWT_OK)
        return st;
    apply_options(e, p, b);
    return PCWT_OK;
}

/* Options r (one or more changed from the handle's) after the per-option checks. */
static pcwt_status set_options(pcwt_encoder *e, const pcwt_encode_params *r)
{
    pcwt_backend b = e->backend;
    if (r->backend != e->req.backend) {
        const pcwt_status st =
            pcwt_backend_select(r->backend, e->env_backend, &b, e->err, sizeof e->err);
        if (st != PCWT_OK)
            return st;
    }
    apply_options(e, r, b);
    return PCWT_OK;
}

pcwt_status pcwt_encoder_set_option(pcwt_encoder *e, pcwt_option option, int64_t value)
{
    if (!e)
        return PCWT_ERR_INVALID_ARGUMENT;
    e->err[0] = 0;
    if (option == PCWT_OPT_DEVICE) {
        if (value < INT32_MIN || value > INT32_MAX) {
            pcwt_set_error(e->err, sizeof e->err, "device %lld out of range", (long long)value);
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        return pcwt_encoder_set_device(e, (int)value);
    }
    if (pcwt_gpu_limits_has(option))
        return pcwt_gpu_limits_set(&e->gpu_limits, option, value, e->err, sizeof e->err);
    pcwt_encode_params r = e->req;
    const pcwt_status st = pcwt_params_set(&r, option, value, e->err, sizeof e->err);
    return st != PCWT_OK ? st : set_options(e, &r);
}

pcwt_status pcwt_encoder_get_option(const pcwt_encoder *e, pcwt_option option, int64_t *value)
{
    if (!e || !value)
        return PCWT_ERR_INVALID_ARGUMENT;
    if (option == PCWT_OPT_DEVICE) {
        *value = e->device;
        return PCWT_OK;
    }
    if (pcwt_gpu_limits_has(option)) {
        *value = pcwt_gpu_limits_get(&e->gpu_limits, option);
        return PCWT_OK;
    }
    return pcwt_params_get(&e->req, option, value);
}

pcwt_status pcwt_encoder_set_option_name(pcwt_encoder *e, const char *name, const char *value)
{
    if (!e)
        return PCWT_ERR_INVALID_ARGUMENT;
    e->err[0] = 0;
    pcwt_named_value nv;
    pcwt_status st = pcwt_option_parse_named(name, value, &nv, e->err, sizeof e->err);
    if (st != PCWT_OK)
        return st;
    if (!(pcwt_option_owners(nv.option[0]) & PCWT_OPTION_ENCODER)) {
        pcwt_set_error(e->err, sizeof e->err, "'%s' is not an encoder option", name);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (nv.option[0] == PCWT_OPT_DEVICE || pcwt_gpu_limits_has(nv.option[0]))
        return pcwt_encoder_set_option(e, nv.option[0], nv.value[0]);
    pcwt_encode_params r = e->req; /* "group" sets both dimensions or neither */
    for (size_t i = 0; i < nv.count && st == PCWT_OK; i++)
        st = pcwt_params_set(&r, nv.option[i], nv.value[i], e->err, sizeof e->err);
    return st != PCWT_OK ? st : set_options(e, &r);
}

int pcwt_encoder_same_coding(const pcwt_encoder *a, const pcwt_encoder *b)
{
    return a && b && pcwt_params_same_coding(&a->params, &b->params);
}

pcwt_status pcwt_encoder_copy_coding(pcwt_encoder *dst, const pcwt_encoder *src)
{
    if (!dst || !src)
        return PCWT_ERR_INVALID_ARGUMENT;
    dst->err[0] = 0;
    pcwt_encode_params r = src->req;
    r.backend = dst->req.backend;
    apply_options(dst, &r, dst->backend);
    return PCWT_OK;
}

/* Coefficient growth: each lifting pass at most doubles a magnitude (plus one), so a plane of
 * b-bit values has QL <= b + 2 * levels. */
static int qmax_bound(uint32_t bits, uint32_t levels)
{
    const uint32_t q = bits + 2 * levels + 1;
    return q > PCWT_MAX_QMAX ? PCWT_MAX_QMAX : (int)q;
}

size_t pcwt_encode_bound(const pcwt_image_desc *d)
{
    if (pcwt_desc_check(d, NULL, 0) != PCWT_OK)
        return 0;
    const uint32_t max_levels = pcwt_plan_max_levels(d->height, d->width, 1);
    uint64_t worst = 0;
    for (uint32_t L = 0; L <= max_levels; L++) {
        pcwt_plan plan;
        pcwt_plan_make(&plan, d->height, d->width, L);
        /* the colour transform's difference planes have one bit more */
        const uint32_t vbits = d->bits_stored + (d->components == 3);
        uint64_t n = pcwt_payload_max_size(&plan, qmax_bound(vbits, L), 1, 1);
        if (d->bits_stored < d->bits_allocated)
            n += pcwt_payload_max_size(&plan, qmax_bound(d->bits_allocated - d->bits_stored, L), 1,
                                       1);
        if (n > worst)
            worst = n;
    }
    /* and a modular offset's r0 per value plane (compact profile) */
    uint64_t total = pcwt_header_size(2 * d->components) + (worst + PCWT_OFFSET_BYTES) * d->components;
    /* The same bound must also hold when the encoder writes JPEG-LS (interleave none with a
     * restart marker every line is its largest form). */
    const uint64_t jls = pcwt_jpegls_encode_bound(d, 0, 1);
    if (jls > total)
        total = jls;
    return total > SIZE_MAX ? 0 : (size_t)total;
}

/* Samples of one plane (the colour transform's when rct) into the pyramid's image, zero padded
 * to even size. */
static void load_plane(const pcwt_image_desc *d, const void *samples, int rct, uint32_t comp,
                       uint32_t kind, pcwt_pyramid *pyr)
{
    const uint32_t stride = pcwt_even_up(d->width), rows = pcwt_even_up(d->height);
    if (stride != d->width)
        for (uint32_t r = 0; r < d->height; r++)
            pyr->image[(size_t)r * stride + d->width] = 0;
    if (rows != d->height)
        memset(pyr->image + (size_t)d->height * stride, 0, sizeof(int32_t) * stride);
    if (rct)
        pcwt_plane_extract_rct(d, samples, comp, pyr->image, stride);
    else
        pcwt_plane_extract(d, samples, comp, kind, pyr->image, stride);
}

/* Whether the range-coded profiles model the low bits of this transformed plane: the option, or
 * with auto the plane's own statistics. */
static int low_bits_modelled(const pcwt_encode_params *p, const pcwt_pyramid *pyr)
{
    return p->low_bits == PCWT_LOW_BITS_ON ||
           (p->low_bits == PCWT_LOW_BITS_AUTO && pcwt_ec_low_bits_wanted(pyr));
}

/* The estimate of the level-1 filter's choice: over the level-1 high bands, each coefficient's
 * bit length plus one for a non-zero one (the coarser levels are the same with either filter). */
static uint64_t level1_bits(const pcwt_pyramid *pyr)
{
    uint64_t n = 0;
    const uint32_t L = pyr->plan.levels;
    for (uint32_t o = 0; o < 3; o++) {
        const pcwt_band *b = &pyr->band[pcwt_band_index(L, 1, o)];
        n += pcwt_bit_cost_sum(b->coef, (size_t)b->rows * b->cols);
    }
    return n;
}

/* The forward transform of the loaded plane with the level-1 filter the options ask for (FORMAT.md
 * Sec. 3.4); *f511 says whether level 1 took 5/11-C. Auto keeps 5/3 where the low bits would be
 * modelled with it (5/3's integer predict keeps their lattice; the estimate sees magnitudes only)
 * and otherwise takes 5/11-C where its estimate is smaller. *low: low_bits_modelled of the
 * coefficients as they end up where this already asked it, else -1. */
static void forward_plane(const pcwt_encode_params *p, pcwt_pyramid *pyr, int columns_first,
                          int *f511, int *low)
{
    *low = -1;
    const int ranged = pcwt_profile_ranged(p->profile) && pyr->plan.levels > 0;
    *f511 = ranged && p->level1_filter == PCWT_LEVEL1_511;
    int32_t *row = ranged && p->level1_filter == PCWT_LEVEL1_AUTO && columns_first
                       ? malloc(sizeof(int32_t) * 2 * pyr->plan.lv[0].level_c)
                       : NULL;
    if (row) { /* columns first: 5/11-C's level 1 estimated from 5/3's, transformed only if taken */
        pcwt_dwt53_forward_level1(pyr, columns_first, 0);
        const uint64_t with53 = level1_bits(pyr), with511 = pcwt_dwt511_level1_cost(pyr, row);
        free(row);
        pcwt_dwt53_forward_above(pyr, columns_first);
        if ((*low = low_bits_modelled(p, pyr)) != 0)
            return;
        *f511 = with511 < with53;
        if (*f511) {
            pcwt_dwt53_forward_level1(pyr, columns_first, 1);
            *low = -1; /* asked of 5/3's level 1 */
        }
        return;
    }
    pcwt_dwt53_forward(pyr, columns_first, *f511);
    if (!ranged || p->level1_filter != PCWT_LEVEL1_AUTO)
        return;
    if ((*low = low_bits_modelled(p, pyr)) != 0)
        return;
    const uint64_t with53 = level1_bits(pyr);
    pcwt_dwt53_forward_level1(pyr, columns_first, 1);
    *f511 = level1_bits(pyr) < with53;
    if (!*f511)
        pcwt_dwt53_forward_level1(pyr, columns_first, 0);
    else
        *low = -1;
}

/* The forward transform and the MQDs of the loaded plane; its Qmax in *qmax (*low: forward_plane's). */
static pcwt_status transform_plane(const pcwt_encode_params *p, pcwt_pyramid *pyr,
                                   int columns_first, int *f511, int *low, int *qmax, char *err,
                                   size_t es)
{
    forward_plane(p, pyr, columns_first, f511, low);
    *qmax = pcwt_mqd_compute(pyr);
    if (*qmax > PCWT_MAX_QMAX) {
        pcwt_set_error(err, es, "coefficients too large (Qmax %d > %d)", *qmax, PCWT_MAX_QMAX);
        return PCWT_ERR_UNSUPPORTED;
    }
    return PCWT_OK;
}

/* The largest payload a plane of this kind may take (what pcwt_encode_bound counts). */
static uint64_t plane_bound(const pcwt_plan *plan, const pcwt_image_desc *d, uint32_t kind)
{
    const uint32_t bits = kind ? d->bits_allocated - d->bits_stored
                               : d->bits_stored + (d->components == 3);
    return pcwt_payload_max_size(plan, qmax_bound(bits, plan->levels), 1, 1) + (kind ? 0u : PCWT_OFFSET_BYTES);
}

/* The modular offset of the loaded plane (FORMAT.md Sec. 5.6): when the options and the estimate
 * want it, r0 written to dst (2 bytes, room checked by the caller) and to *r0, *len 2, else 0 (and
 * *r0 0). The values stay as they are (values_plane offsets them). *used: where the estimate ran,
 * the stored values that occur (pcwt_offset_mark_used; the caller frees it), else NULL. */
static pcwt_status offset_plane(pcwt_encoder *e, const pcwt_image_desc *d, int allowed,
                                const pcwt_pyramid *pyr, uint8_t *dst, size_t *len, uint32_t *r0,
                                uint8_t **used)
{
    *len = 0;
    *r0 = 0;
    *used = NULL;
    if (!allowed || e->params.offset == PCWT_OFFSET_OFF)
        return PCWT_OK;
    const uint32_t stride = pcwt_even_up(d->width);
    pcwt_status st = PCWT_ERR_OUT_OF_MEMORY;
    *used = calloc((size_t)1 << d->bits_stored, 1);
    if (*used)
        pcwt_offset_mark_used(pyr->image, stride, d->height, d->width, d->bits_stored, *used);
    if (!*used || !pcwt_offset_choose(e->params.offset, pyr->image, stride, d->height, d->width,
                                      d->bits_stored, (int)d->is_signed, *used, r0, &st)) {
        *r0 = 0;
        if (st != PCWT_OK)
            pcwt_set_error(e->err, sizeof e->err, "out of memory for a modular offset's estimate");
        return st;
    }
    dst[0] = (uint8_t)*r0;
    dst[1] = (uint8_t)(*r0 >> 8);
    *len = PCWT_OFFSET_BYTES;
    return PCWT_OK;
}

/* The values the loaded plane codes: with the offset r0 where offset_plane took it (offset), and
 * where the options want a value map (FORMAT.md Sec. 5.5) the map written to dst and the samples
 * replaced by their ranks, *map_len its length; 0 when the plane is coded plain (also when the map
 * does not fit in cap: the payload's own check reports that). used: offset_plane's, or NULL; with
 * it the map needs no pass over the samples, and the offset and the ranks take one. */
static pcwt_status values_plane(pcwt_encoder *e, const pcwt_image_desc *d, pcwt_pyramid *pyr,
                                const uint8_t *used, int offset, uint32_t r0, uint8_t *dst,
                                size_t cap, size_t *map_len)
{
    *map_len = 0;
    const uint32_t stride = pcwt_even_up(d->width), bits = d->bits_stored;
    int ranked = 0;
    if (e->params.profile == PCWT_PROFILE_COMPACT && e->params.value_map != PCWT_VALUE_MAP_OFF) {
        const pcwt_status st =
            used ? pcwt_value_map_from_used(&e->vmap, used, bits, (int)d->is_signed, offset, r0)
                 : pcwt_value_map_build(&e->vmap, pyr->image, stride, d->height, d->width);
        if (st != PCWT_OK) {
            pcwt_set_error(e->err, sizeof e->err, "out of memory for a value map");
            return st;
        }
        ranked = (e->params.value_map == PCWT_VALUE_MAP_ON || pcwt_value_map_wanted(&e->vmap)) &&
                 pcwt_value_map_write(&e->vmap, dst, cap, map_len) == PCWT_OK;
        if (!ranked)
            *map_len = 0;
    }
    if (ranked && used &&
        pcwt_value_map_to_ranks_mod(&e->vmap, pyr->image, stride, d->height, d->width, bits, r0))
        return PCWT_OK;
    if (offset)
        pcwt_offset_apply(pyr->image, stride, d->height, d->width, bits, r0);
    if (ranked)
        pcwt_value_map_to_ranks(&e->vmap, pyr->image, stride, d->height, d->width);
    return PCWT_OK;
}

static pcwt_status encode_frame(pcwt_encoder *e, const pcwt_image_desc *din, const void *samples,
                                size_t samples_size, void *dst, size_t cap, size_t *written)
{
    char *err = e->err;
    const size_t es = sizeof e->err;
    if (written)
        *written = 0;
    pcwt_status st = pcwt_desc_check(din, err, es);
    if (st != PCWT_OK)
        return st;
    if (!samples || !dst || !written) {
        pcwt_set_error(err, es, "NULL buffer");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    pcwt_image_desc d = *din;
    if (d.components == 1)
        d.planar = 0;
    if (samples_size != pcwt_image_size(&d)) {
        pcwt_set_error(err, es, "sample buffer is %zu bytes, the image needs %zu", samples_size,
                       pcwt_image_size(&d));
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const pcwt_encode_params *p = &e->params;
    if (p->codec == PCWT_CODEC_JPEGLS)
        return pcwt_jpegls_encode_frame(p, &d, samples, dst, cap, written, &e->jls_lut, err, es);
    pcwt_frame_coding fc;
    pcwt_frame_coding_resolve(p, &d, &fc);
    pcwt_header_info info;
    memset(&info, 0, sizeof info);
    info.format_version = PCWT_FORMAT_VERSION;
    info.profile = p->profile;
    info.desc = d;
    info.levels = fc.levels;
    info.group_rows = fc.group_rows;
    info.group_cols = fc.group_cols;
    info.colour_transform = fc.colour_transform;
    info.columns_first = fc.columns_first;
    for (uint32_t c = 0; c < d.components; c++) {
        info.planes[info.plane_count].component = c;
        info.planes[info.plane_count++].kind = 0;
        if (pcwt_plane_has_high_bits(&d, samples, c)) {
            info.planes[info.plane_count].component = c;
            info.planes[info.plane_count++].kind = 1;
        }
    }
    const size_t hs = pcwt_header_size(info.plane_count);
    if (cap < hs) {
        pcwt_set_error(err, es, "destination buffer of %zu bytes too small", cap);
        return PCWT_ERR_BUFFER_TOO_SMALL;
    }
    pcwt_plan plan;
    pcwt_plan_make(&plan, d.height, d.width, info.levels);
    pcwt_pyramid *pyr = &e->pyr;
    if (pcwt_pyramid_prepare(pyr, &plan) != PCWT_OK) {
        pcwt_set_error(err, es, "out of memory for a %ux%u image", d.width, d.height);
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    uint8_t *out = (uint8_t *)dst;
    size_t off = hs;
    for (uint32_t i = 0; i < info.plane_count; i++) {
        const pcwt_plane_info *pl = &info.planes[i];
        const int rct = info.colour_transform && pl->kind == 0;
        load_plane(&d, samples, rct, pl->component, pl->kind, pyr);
        /* The modular offset (compact profile, FORMAT.md Sec. 5.6): r0 starts the payload. */
        const int offset_allowed = pcwt_offset_allowed(p->profile, pl->kind, info.colour_transform);
        if (offset_allowed && p->offset != PCWT_OFFSET_OFF && cap - off < PCWT_OFFSET_BYTES) {
            pcwt_set_error(err, es, "destination buffer of %zu bytes too small (see pcwt_encode_bound)", cap);
            return PCWT_ERR_BUFFER_TOO_SMALL;
        }
        size_t offset_len = 0;
        uint32_t r0 = 0;
        uint8_t *used = NULL;
        st = offset_plane(e, &d, offset_allowed, pyr, out + off, &offset_len, &r0, &used);
        if (st != PCWT_OK)
            return st;
        off += offset_len;
        /* Value compaction (compact profile, FORMAT.md Sec. 5.5): the map follows and the ranks
         * are transformed. */
        size_t map_len = 0;
        st = values_plane(e, &d, pyr, used, offset_len != 0, r0, out + off, cap - off, &map_len);
        free(used);
        if (st != PCWT_OK)
            return st;
        int qmax = 0, f511 = 0, low = -1;
        st = transform_plane(p, pyr, (int)info.columns_first, &f511, &low, &qmax, err, es);
        if (st != PCWT_OK)
            return st;
        /* The entropy profile's payload is never larger than the baseline's. */
        uint64_t size = pcwt_payload_size(pyr, qmax, fc.group_rows, fc.group_cols);
        if (map_len && offset_len + map_len + size > plane_bound(&plan, &d, pl->kind)) {
            /* A map as large as the plane (only when forced on): the values are coded, so that
             * pcwt_encode_bound holds. */
            map_len = 0;
            load_plane(&d, samples, rct, pl->component, pl->kind, pyr);
            if (offset_len)
                pcwt_offset_apply(pyr->image, pcwt_even_up(d.width), d.height, d.width, d.bits_stored, r0);
            st = transform_plane(p, pyr, (int)info.columns_first, &f511, &low, &qmax, err, es);
            if (st != PCWT_OK)
                return st;
            size = pcwt_payload_size(pyr, qmax, fc.group_rows, fc.group_cols);
        }
        info.planes[i].value_map = map_len != 0;
        info.planes[i].level1_511 = (uint32_t)f511;
        info.planes[i].offset = offset_len != 0;
        off += map_len;
        if (size > cap - off) {
            pcwt_set_error(err, es, "destination buffer of %zu bytes too small (see pcwt_encode_bound)",
                           cap);
            return PCWT_ERR_BUFFER_TOO_SMALL;
        }
        if (pcwt_profile_ranged(p->profile)) {
            if (low < 0)
                low = low_bits_modelled(p, pyr);
            const int second = p->second_bit == PCWT_SECOND_BIT_ON;
            info.planes[i].low_bits = (uint32_t)low;
            info.planes[i].second_bit = (uint32_t)second;
            size_t n = 0;
            st = pcwt_ec_payload_encode(pyr, qmax, fc.group_rows, fc.group_cols,
                                        pcwt_ec_modelled_bits(low, second), out + off,
                                        (size_t)size, &n);
            if (st != PCWT_OK) {
                pcwt_set_error(err, es, "plane %u: entropy coding failed (%s)", i,
                               pcwt_status_string(st));
                return st;
            }
            size = n;
        } else {
            pcwt_payload_encode(pyr, qmax, fc.group_rows, fc.group_cols, out + off);
        }
        info.planes[i].qmax = qmax;
        info.planes[i].payload_length = size + map_len + offset_len;
        info.planes[i].payload_crc32 =
            pcwt_crc32(out + off - map_len - offset_len, (size_t)size + map_len + offset_len);
        off += (size_t)size;
    }
    pcwt_header_write(&info, out);
    *written = off;
    return PCWT_OK;
}

pcwt_backend pcwt_encoder_backend(const pcwt_encoder *e)
{
    return e ? pcwt_backend_resolve(e->backend, PCWT_BACKEND_AUTO) : PCWT_BACKEND_CPU;
}

#ifdef PCWT_HAVE_CUDA
/* Frames the device encoders take: all for PCWT; for JPEG-LS grey frames and colour with
 * interleave none, at least 2 bits (the CPU encoder gives the errors for the rest). */
static int gpu_takes(const pcwt_encode_params *p, const pcwt_image_desc *d)
{
    if (p->codec != PCWT_CODEC_JPEGLS)
        return 1;
    return d->bits_stored >= 2 && p->jpegls_interleave <= 2 &&
           (d->components == 1 || p->jpegls_interleave == 0);
}

/* The GPU path: jobs are validated here, the device codes the valid ones together, and frames
 * the device has no memory for are coded on the CPU, as are the few it reports unsupported (a
 * Qmax above the limit, for the CPU's error; a value map that may not keep its plane within the
 * bound, or longer than the device gave it room for, for the CPU's exact decision). */
static pcwt_status encode_batch_gpu(pcwt_encoder *e, pcwt_frame_job *jobs, size_t count)
{
    /* every job gets a status, also when the call fails as a whole (a caller may take a job's
     * status alone) */
    pcwt_status st = e->gpu ? PCWT_OK : pcwt_gpu_create(&e->gpu, e->device, e->err, sizeof e->err);
    if (st == PCWT_OK) {
        pcwt_gpu_set_chunks(e->gpu, e->gpu_limits.chunks);
        pcwt_gpu_set_memory_budget(e->gpu, e->gpu_limits.memory_limit);
        pcwt_gpu_set_bin_arena(e->gpu, e->gpu_limits.bin_arena);
    }
    pcwt_frame_job *valid = NULL;
    size_t *where = NULL;
    if (st == PCWT_OK) {
        valid = malloc(sizeof *valid * (count ? count : 1));
        where = malloc(sizeof *where * (count ? count : 1));
        if (!valid || !where) {
            pcwt_set_error(e->err, sizeof e->err, "out of memory");
            st = PCWT_ERR_OUT_OF_MEMORY;
        }
    }
    if (st != PCWT_OK) {
        free(valid);
        free(where);
        for (size_t i = 0; i < count; i++) {
            jobs[i].status = st;
            jobs[i].written = 0;
        }
        return st;
    }
    size_t n = 0, cpu_only = 0;
    for (size_t i = 0; i < count; i++) {
        pcwt_frame_job *j = &jobs[i];
        j->written = 0;
        j->status = pcwt_desc_check(&j->desc, e->err, sizeof e->err);
        if (j->status == PCWT_OK && (!j->samples || !j->dst)) {
            pcwt_set_error(e->err, sizeof e->err, "frame %zu: NULL buffer", i);
            j->status = PCWT_ERR_INVALID_ARGUMENT;
        }
        if (j->status == PCWT_OK && j->samples_size != pcwt_image_size(&j->desc)) {
            pcwt_set_error(e->err, sizeof e->err, "frame %zu: sample buffer is %zu bytes, the image needs %zu",
                           i, j->samples_size, pcwt_image_size(&j->desc));
            j->status = PCWT_ERR_INVALID_ARGUMENT;
        }
        if (j->status == PCWT_OK && !gpu_takes(&e->params, &j->desc)) {
            j->status = encode_frame(e, &j->desc, j->samples, j->samples_size, j->dst,
                                     j->dst_capacity, &j->written);
            cpu_only++;
            continue;
        }
        if (j->status == PCWT_OK) {
            valid[n] = *j;
            where[n++] = i;
        }
    }
    char gerr[256] = "";
    const pcwt_status gst =
        e->params.codec == PCWT_CODEC_JPEGLS
            ? pcwt_gpu_jpegls_encode_batch(e->gpu, &e->params, valid, n, gerr, sizeof gerr)
            : pcwt_gpu_encode_batch(e->gpu, &e->params, valid, n, gerr, sizeof gerr);
    size_t on_cpu = 0;
    for (size_t k = 0; k < n; k++) {
        pcwt_frame_job *j = &jobs[where[k]];
        if (gst == PCWT_ERR_BACKEND_UNAVAILABLE) {
            j->status = gst;
            continue;
        }
        if (valid[k].status == PCWT_ERR_OUT_OF_MEMORY ||
            (gst == PCWT_ERR_OUT_OF_MEMORY && valid[k].status == PCWT_OK && !valid[k].written)) {
            j->status = encode_frame(e, &j->desc, j->samples, j->samples_size, j->dst,
                                     j->dst_capacity, &j->written);
            on_cpu++;
            continue;
        }
        if (valid[k].status == PCWT_ERR_UNSUPPORTED && e->params.codec == PCWT_CODEC_PCWT) {
            j->status = encode_frame(e, &j->desc, j->samples, j->samples_size, j->dst,
                                     j->dst_capacity, &j->written);
            cpu_only++;
            continue;
        }
        j->status = valid[k].status;
        j->written = valid[k].written;
        if (j->status != PCWT_OK)
            pcwt_set_error(e->err, sizeof e->err, "frame %zu: %s", where[k],
                           gerr[0] ? gerr : pcwt_status_string(j->status));
    }
    free(valid);
    free(where);
    if (gst == PCWT_ERR_BACKEND_UNAVAILABLE)
        pcwt_set_error(e->err, sizeof e->err, "%s", gerr);
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count && first == PCWT_OK; i++)
        first = jobs[i].status;
    if (first == PCWT_OK && on_cpu)
        pcwt_set_error(e->err, sizeof e->err,
                       "notice: %zu frame(s) did not fit in GPU memory and were encoded on the CPU",
                       on_cpu);
    else if (first == PCWT_OK && cpu_only)
        pcwt_set_error(e->err, sizeof e->err,
                       "notice: %zu frame(s) were encoded on the CPU (the GPU JPEG-LS encoder codes "
                       "grey frames and colour with interleave none; the GPU PCWT encoder leaves "
                       "value maps that may not fit a plane's bound to the CPU)",
                       cpu_only);
    return first;
}
#endif

#ifdef PCWT_HAVE_CUDA
/* The handle's backend, AUTO resolved (and kept) on the first call that codes. */
static int use_gpu(pcwt_encoder *e)
{
    e->backend = pcwt_backend_resolve(e->backend, PCWT_BACKEND_AUTO);
    return e->backend == PCWT_BACKEND_GPU;
}
#endif

pcwt_status pcwt_encode(pcwt_encoder *e, const pcwt_image_desc *desc, const void *samples,
                        size_t samples_size, void *dst, size_t cap, size_t *written)
{
    if (!e)
        return PCWT_ERR_INVALID_ARGUMENT;
    e->err[0] = 0;
#ifdef PCWT_HAVE_CUDA
    if (use_gpu(e)) {
        if (!desc || !written) {
            pcwt_set_error(e->err, sizeof e->err, "NULL argument");
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        pcwt_frame_job job = {*desc, samples, samples_size, dst, cap, 0, PCWT_OK};
        const pcwt_status st = encode_batch_gpu(e, &job, 1);
        *written = job.written;
        return st;
    }
#endif
    return encode_frame(e, desc, samples, samples_size, dst, cap, written);
}

pcwt_status pcwt_encode_batch(pcwt_encoder *e, pcwt_frame_job *jobs, size_t count)
{
    if (!e || (!jobs && count))
        return PCWT_ERR_INVALID_ARGUMENT;
    e->err[0] = 0;
#ifdef PCWT_HAVE_CUDA
    if (use_gpu(e))
        return encode_batch_gpu(e, jobs, count);
#endif
    pcwt_status first = PCWT_OK;
    char first_err[sizeof e->err] = "";
    for (size_t i = 0; i < count; i++) {
        pcwt_frame_job *j = &jobs[i];
        j->status = encode_frame(e, &j->desc, j->samples, j->samples_size, j->dst,
                                 j->dst_capacity, &j->written);
        if (j->status != PCWT_OK && first == PCWT_OK) {
            first = j->status;
            memcpy(first_err, e->err, sizeof first_err);
        }
    }
    if (first != PCWT_OK)
        memcpy(e->err, first_err, sizeof first_err);
    return first;
}
