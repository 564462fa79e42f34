/* decoder.c - sequences the decoder: header validation and limits before any allocation, then
 * per plane: CRC check, group decoding, inverse B-LDWT+B, range-checked store into the caller's
 * buffer. Every byte of the codestream is treated as untrusted. */
#include "backend.h"
#include "container.h"
#include "decode_limits.h"
#include "dwt53.h"
#include "group_coder.h"
#include "group_coder_ec.h"
#include "j2k_decoder.h"
#include "options.h"
#include "planes.h"
#include "rct.h"
#include "status.h"
#include "offset.h"
#include "value_map.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PCWT_HAVE_CUDA
#include "gpu_backend.h"
#endif

struct pcwt_decoder {
    uint64_t max_samples;
    uint64_t memory_limit;    /* bytes; 0: pcwt_default_memory_limit() at each call */
    pcwt_backend env_backend; /* PCWT_BACKEND at creation */
    pcwt_backend requested_backend; /* as set (pcwt_decoder_get_option) */
    pcwt_backend backend;     /* CPU or GPU; AUTO until the first call that decodes (pcwt_jobs) */
    pcwt_pyramid pyr;         /* reused across calls */
    int32_t *rct;             /* colour transform: the three value planes, kept until all are decoded */
    size_t rct_size;          /* int32s per plane in rct */
    pcwt_value_map vmap;      /* the value map of the plane being decoded */
#ifdef PCWT_HAVE_CUDA
    pcwt_gpu *gpu; /* created on first use */
    pcwt_j2k_pool *j2k_pool; /* JPEG 2000 tier-2's memory between GPU batches, made on first use */
#endif
    int device; /* pcwt_decoder_set_device */
    pcwt_gpu_limits gpu_limits; /* PCWT_OPT_GPU_CHUNKS, PCWT_OPT_GPU_MEMORY_LIMIT */
    uint8_t *scratch;     /* pcwt_verify_batch on the CPU: a frame decoded, kept across calls */
    size_t scratch_size;
    char err[256];
};

pcwt_decoder *pcwt_decoder_create(void)
{
    pcwt_decoder *d = calloc(1, sizeof *d);
    if (d) {
        d->max_samples = PCWT_MAX_SAMPLES;
        d->env_backend = pcwt_backend_from_env();
        d->backend = pcwt_backend_choice(PCWT_BACKEND_AUTO, d->env_backend);
    }
    return d;
}

void pcwt_decoder_destroy(pcwt_decoder *d)
{
    if (!d)
        return;
    pcwt_pyramid_free(&d->pyr);
    free(d->rct);
    free(d->scratch);
    pcwt_value_map_free(&d->vmap);
#ifdef PCWT_HAVE_CUDA
    pcwt_gpu_destroy(d->gpu);
    pcwt_j2k_pool_free(d->j2k_pool);
#endif
    free(d);
}

const char *pcwt_decoder_last_error(const pcwt_decoder *d) { return d ? d->err : ""; }

pcwt_status pcwt_decoder_set_max_samples(pcwt_decoder *d, uint64_t max_samples)
{
    if (!d || max_samples == 0)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->max_samples = max_samples;
    return PCWT_OK;
}

pcwt_status pcwt_decoder_set_memory_limit(pcwt_decoder *d, uint64_t bytes)
{
    if (!d)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->memory_limit = bytes;
    return PCWT_OK;
}

/* Whether the handle decodes on the GPU: AUTO resolved (and kept) on the first call that decodes. */
static int use_gpu(pcwt_decoder *dec)
{
    dec->backend = pcwt_backend_resolve(dec->backend, PCWT_BACKEND_AUTO);
    return dec->backend == PCWT_BACKEND_GPU;
}

/* The host memory a batch needs (pcwt_decode_memory_bound for one codestream): the CPU path's
 * working memory is reused from job to job (the largest counts), every decoded frame is held at
 * once (the callers' buffers), and the GPU path stages every codestream and frame. Jobs whose
 * header does not parse fail on their own later and count nothing. src_of gives job i's bytes. */
static pcwt_status budget_check(pcwt_decoder *dec, const void *jobs, size_t count,
                                const void *(*src_of)(const void *, size_t, size_t *),
                                pcwt_status *job_status, size_t status_stride)
{
    const int gpu = use_gpu(dec);
    uint64_t work = 0, held = 0, valid = 0;
    uint32_t w0 = 0, h0 = 0;
    if (count == 0)
        return PCWT_OK;
    for (size_t i = 0; i < count; i++) {
        size_t size;
        const void *src = src_of(jobs, i, &size);
        pcwt_header_info info;
        if (!src || pcwt_header_parse((const uint8_t *)src, size, &info, NULL, 0) != PCWT_OK)
            continue;
        const uint64_t w = pcwt_decode_working_bytes(&info, 0);
        work = w > work ? w : work;
        held += pcwt_image_size(&info.desc) + (gpu ? pcwt_decode_gpu_staging_bytes(&info) : 0);
        valid++;
        w0 = info.desc.width;
        h0 = info.desc.height;
    }
    const uint64_t limit = dec->memory_limit ? dec->memory_limit : pcwt_default_memory_limit();
    char what[64];
    if (count == 1)
        snprintf(what, sizeof what, "decoding a %ux%u image", w0, h0);
    else
        snprintf(what, sizeof what, "a batch of %zu codestreams", count);
    const pcwt_status st = pcwt_memory_check(work + held, limit, what, dec->err, sizeof dec->err);
    if (st != PCWT_OK)
        for (size_t i = 0; i < count; i++)
            *(pcwt_status *)((char *)job_status + i * status_stride) = st;
    return valid ? st : PCWT_OK;
}

static const void *decode_src(const void *jobs, size_t i, size_t *size)
{
    const pcwt_decode_job *j = (const pcwt_decode_job *)jobs + i;
    *size = j->src_size;
    return j->src;
}

static const void *verify_src(const void *jobs, size_t i, size_t *size)
{
    const pcwt_verify_job *j = (const pcwt_verify_job *)jobs + i;
    *size = j->src_size;
    return j->src;
}

pcwt_status pcwt_decoder_set_backend(pcwt_decoder *d, pcwt_backend backend)
{
    if (!d)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->err[0] = 0;
    pcwt_backend b;
    const pcwt_status st = pcwt_backend_select(backend, d->env_backend, &b, d->err, sizeof d->err);
    if (st != PCWT_OK)
        return st;
    d->backend = b;
    d->requested_backend = backend;
    return PCWT_OK;
}

pcwt_backend pcwt_decoder_backend(const pcwt_decoder *d)
{
    return d ? pcwt_backend_resolve(d->backend, PCWT_BACKEND_AUTO) : PCWT_BACKEND_CPU;
}

pcwt_status pcwt_decoder_set_device(pcwt_decoder *d, int device)
{
    if (!d)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->err[0] = 0;
    const pcwt_status st = pcwt_device_check(device, d->err, sizeof d->err);
    if (st != PCWT_OK)
        return st;
#ifdef PCWT_HAVE_CUDA
    if (d->gpu && device != d->device) {
        pcwt_gpu_destroy(d->gpu);
        d->gpu = NULL;
    }
#endif
    d->device = device;
    return PCWT_OK;
}

pcwt_status pcwt_decoder_set_option(pcwt_decoder *d, pcwt_option option, int64_t value)
{
    if (!d)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->err[0] = 0;
    if (!(pcwt_option_owners(option) & PCWT_OPTION_DECODER)) {
        pcwt_set_error(d->err, sizeof d->err, "option %d is not a decoder option", (int)option);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    switch (option) {
    case PCWT_OPT_BACKEND:
        if (value < 0 || value > 2) {
            pcwt_set_error(d->err, sizeof d->err, "unknown backend %lld", (long long)value);
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        return pcwt_decoder_set_backend(d, (pcwt_backend)value);
    case PCWT_OPT_DEVICE:
        if (value < INT32_MIN || value > INT32_MAX) {
            pcwt_set_error(d->err, sizeof d->err, "device %lld out of range", (long long)value);
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        return pcwt_decoder_set_device(d, (int)value);
    case PCWT_OPT_MAX_SAMPLES:
        if (value < 1) {
            pcwt_set_error(d->err, sizeof d->err, "max-samples must be at least 1");
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        return pcwt_decoder_set_max_samples(d, (uint64_t)value);
    case PCWT_OPT_MEMORY_LIMIT:
        if (value < 0) {
            pcwt_set_error(d->err, sizeof d->err, "memory-limit must not be negative");
            return PCWT_ERR_INVALID_ARGUMENT;
        }
        return pcwt_decoder_set_memory_limit(d, (uint64_t)value);
    case PCWT_OPT_GPU_CHUNKS:
    case PCWT_OPT_GPU_MEMORY_LIMIT:
        return pcwt_gpu_limits_set(&d->gpu_limits, option, value, d->err, sizeof d->err);
    default:
        return PCWT_ERR_INVALID_ARGUMENT;
    }
}

pcwt_status pcwt_decoder_get_option(const pcwt_decoder *d, pcwt_option option, int64_t *value)
{
    if (!d || !value)
        return PCWT_ERR_INVALID_ARGUMENT;
    switch (option) {
    case PCWT_OPT_BACKEND: *value = d->requested_backend; return PCWT_OK;
    case PCWT_OPT_DEVICE: *value = d->device; return PCWT_OK;
    case PCWT_OPT_MAX_SAMPLES: *value = (int64_t)d->max_samples; return PCWT_OK;
    case PCWT_OPT_MEMORY_LIMIT: *value = (int64_t)d->memory_limit; return PCWT_OK;
    case PCWT_OPT_GPU_CHUNKS:
    case PCWT_OPT_GPU_MEMORY_LIMIT: *value = pcwt_gpu_limits_get(&d->gpu_limits, option); return PCWT_OK;
    default: return PCWT_ERR_INVALID_ARGUMENT;
    }
}

pcwt_status pcwt_decoder_set_option_name(pcwt_decoder *d, const char *name, const char *value)
{
    if (!d)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->err[0] = 0;
    pcwt_named_value nv;
    const pcwt_status st = pcwt_option_parse_named(name, value, &nv, d->err, sizeof d->err);
    if (st != PCWT_OK)
        return st;
    if (nv.count != 1 || !(pcwt_option_owners(nv.option[0]) & PCWT_OPTION_DECODER)) {
        pcwt_set_error(d->err, sizeof d->err, "'%s' is not a decoder option", name);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    return pcwt_decoder_set_option(d, nv.option[0], nv.value[0]);
}

/* The inverse colour transform (FORMAT.md Sec. 2.1) of n pixels in place: y0, y1, y2 become
 * the values of components 0, 1, 2, range-checked afterwards by pcwt_plane_store. The planes of
 * a valid stream stay within +-2^18 (the RCT of 16-bit values needs 18 bits); there 32-bit
 * arithmetic is exact and the loop vectorises. A plane beyond that can only come from a damaged
 * or hostile stream, and (the RCT being a bijection on integer triples) makes some result leave
 * every valid range: computed in 64 bits, values beyond int32 clamped. */
static void rct_inverse(int32_t *restrict y0, int32_t *restrict y1, int32_t *restrict y2, size_t n)
{
    const uint32_t box = 1u << 18;
    uint32_t wild = 0;
    for (size_t k = 0; k < n; k++)
        wild |= ((uint32_t)y0[k] + box) | ((uint32_t)y1[k] + box) | ((uint32_t)y2[k] + box);
    if (!(wild >> 19)) {
        for (size_t k = 0; k < n; k++) {
            const int32_t v1 = y0[k] - ((y1[k] + y2[k]) >> 2);
            y0[k] = y2[k] + v1;
            y2[k] = y1[k] + v1;
            y1[k] = v1;
        }
        return;
    }
    for (size_t k = 0; k < n; k++) {
        int32_t v[3];
        for (uint32_t c = 0; c < 3; c++) {
            const int64_t x = pcwt_rct_inverse(y0[k], y1[k], y2[k], c);
            v[c] = x < INT32_MIN ? INT32_MIN : x > INT32_MAX ? INT32_MAX : (int32_t)x;
        }
        y0[k] = v[0];
        y1[k] = v[1];
        y2[k] = v[2];
    }
}

static pcwt_status decode_cpu(pcwt_decoder *dec, const void *src, size_t src_size, void *dst,
                              size_t dst_capacity)
{
    char *err = dec->err;
    const size_t es = sizeof dec->err;
    if (!src || !dst) {
        pcwt_set_error(err, es, "NULL buffer");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const uint8_t *s = (const uint8_t *)src;
    pcwt_header_info info;
    pcwt_status st = pcwt_header_parse(s, src_size, &info, err, es);
    if (st != PCWT_OK)
        return st;
    const pcwt_image_desc *d = &info.desc;
    st = pcwt_decode_check(&info, src_size, dst_capacity, dec->max_samples, err, es);
    if (st != PCWT_OK)
        return st;
    pcwt_plan plan;
    pcwt_plan_make(&plan, d->height, d->width, info.levels);
    pcwt_pyramid *pyr = &dec->pyr;
    if (pcwt_pyramid_prepare_decode(pyr, &plan) != PCWT_OK) {
        pcwt_set_error(err, es, "out of memory for a %ux%u image", d->width, d->height);
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    const uint32_t stride = pcwt_even_up(d->width);
    const size_t plane_ints = (size_t)stride * pcwt_even_up(d->height);
    if (info.colour_transform && dec->rct_size < plane_ints) {
        free(dec->rct);
        dec->rct_size = 0;
        dec->rct = malloc(3 * plane_ints * sizeof *dec->rct);
        if (!dec->rct) {
            pcwt_set_error(err, es, "out of memory for a %ux%u image", d->width, d->height);
            return PCWT_ERR_OUT_OF_MEMORY;
        }
        dec->rct_size = plane_ints;
    }
    size_t at[PCWT_MAX_PLANES];
    at[0] = info.header_length;
    for (uint32_t i = 1; i < info.plane_count; i++)
        at[i] = at[i - 1] + (size_t)info.planes[i - 1].payload_length;
    /* With the colour transform the value planes go first (pass 0) and are stored together;
     * the high-bit planes (pass 1) XOR into the words they wrote. */
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < info.plane_count; i++) {
            const uint32_t kind = info.planes[i].kind, comp = info.planes[i].component;
            const int early = info.colour_transform && kind == 0;
            if (info.colour_transform ? (kind == 0) != (pass == 0) : pass == 1)
                continue;
            const size_t len = (size_t)info.planes[i].payload_length;
            const uint8_t *payload = s + at[i];
#ifndef PCWT_FUZZING_SKIP_CRC
            if (pcwt_crc32(payload, len) != info.planes[i].payload_crc32) {
                pcwt_set_error(err, es, "plane %u: payload checksum mismatch", i);
                return PCWT_ERR_CRC_MISMATCH;
            }
#endif
            char why[160];
            /* r0 of a modular offset (FORMAT.md Sec. 5.6), then a value map, start the payload */
            size_t pre = 0, map_len = 0;
            uint32_t r0 = 0;
            if (info.planes[i].offset) {
                if (len < PCWT_OFFSET_BYTES) {
                    pcwt_set_error(err, es, "plane %u: payload too short for its modular offset", i);
                    return PCWT_ERR_CORRUPT;
                }
                r0 = (uint32_t)payload[0] | (uint32_t)payload[1] << 8;
                if (r0 >> d->bits_stored) {
                    pcwt_set_error(err, es, "plane %u: modular offset %u not below 2^%u", i, r0, d->bits_stored);
                    return PCWT_ERR_CORRUPT;
                }
                pre = PCWT_OFFSET_BYTES;
            }
            if (info.planes[i].value_map) {
                st = pcwt_value_map_read(&dec->vmap, payload + pre, len - pre, (uint64_t)d->width * d->height,
                                         &map_len, why, sizeof why);
                if (st != PCWT_OK) {
                    pcwt_set_error(err, es, "plane %u: %s", i, why);
                    return st;
                }
            }
            st = pcwt_profile_ranged(info.profile)
                     ? pcwt_ec_payload_decode(pyr, info.planes[i].qmax, info.group_rows,
                                              info.group_cols,
                                              pcwt_ec_modelled_bits((int)info.planes[i].low_bits,
                                                                    (int)info.planes[i].second_bit),
                                              payload + pre + map_len, len - pre - map_len, why, sizeof why)
                     : pcwt_payload_decode(pyr, info.planes[i].qmax, info.group_rows,
                                           info.group_cols, payload, len, why, sizeof why);
            if (st != PCWT_OK) {
                pcwt_set_error(err, es, "plane %u: %s", i, why);
                return st;
            }
            pcwt_dwt53_inverse(pyr, (int)info.columns_first, (int)info.planes[i].level1_511);
            if (info.planes[i].value_map) {
                st = pcwt_value_map_from_ranks(&dec->vmap, pyr->image, stride, d->height, d->width, why,
                                               sizeof why);
                if (st != PCWT_OK) {
                    pcwt_set_error(err, es, "plane %u: %s", i, why);
                    return st;
                }
            }
            if (info.planes[i].offset &&
                !pcwt_offset_undo(pyr->image, stride, d->height, d->width, d->bits_stored, (int)d->is_signed, r0)) {
                pcwt_set_error(err, es, "plane %u: decoded sample out of range", i);
                return PCWT_ERR_CORRUPT;
            }
            if (early) {
                memcpy(dec->rct + comp * plane_ints, pyr->image, plane_ints * sizeof *dec->rct);
                continue;
            }
            if (!pcwt_plane_store(d, dst, comp, kind, pyr->image, stride)) {
                pcwt_set_error(err, es, "plane %u: decoded sample out of range", i);
                return PCWT_ERR_CORRUPT;
            }
        }
        if (info.colour_transform && pass == 0) {
            rct_inverse(dec->rct, dec->rct + plane_ints, dec->rct + 2 * plane_ints, plane_ints);
            for (uint32_t c = 0; c < 3; c++)
                if (!pcwt_plane_store(d, dst, c, 0, dec->rct + c * plane_ints, stride)) {
                    pcwt_set_error(err, es, "component %u: decoded sample out of range", c);
                    return PCWT_ERR_CORRUPT;
                }
        }
    }
    return PCWT_OK;
}

/* Each job in turn on the CPU (one() sets job i's status and returns it); the first failure's
 * message stays in dec->err and its status is returned. */
static pcwt_status each_on_cpu(pcwt_decoder *dec, void *jobs, size_t count,
                               pcwt_status (*one)(pcwt_decoder *, void *, size_t))
{
    pcwt_status first = PCWT_OK;
    char first_err[sizeof dec->err] = "";
    for (size_t i = 0; i < count; i++) {
        const pcwt_status st = one(dec, jobs, i);
        if (st != PCWT_OK && first == PCWT_OK) {
            first = st;
            memcpy(first_err, dec->err, sizeof first_err);
        }
    }
    if (first != PCWT_OK)
        memcpy(dec->err, first_err, sizeof first_err);
    return first;
}

static pcwt_status decode_job_cpu(pcwt_decoder *dec, void *jobs, size_t i)
{
    pcwt_decode_job *j = (pcwt_decode_job *)jobs + i;
    return j->status = decode_cpu(dec, j->src, j->src_size, j->dst, j->dst_capacity);
}

#ifdef PCWT_HAVE_CUDA

/* The GPU context is made on the first batch that needs it, so a CPU-only caller never pays for it. */
static pcwt_status ensure_gpu(pcwt_decoder *dec)
{
    const pcwt_status st =
        dec->gpu ? PCWT_OK : pcwt_gpu_create(&dec->gpu, dec->device, dec->err, sizeof dec->err);
    if (st == PCWT_OK) {
        pcwt_gpu_set_chunks(dec->gpu, dec->gpu_limits.chunks);
        pcwt_gpu_set_memory_budget(dec->gpu, dec->gpu_limits.memory_limit);
    }
    return st;
}

static pcwt_status decode_batch_gpu(pcwt_decoder *dec, pcwt_decode_job *jobs, size_t count)
{
    const pcwt_status ready = ensure_gpu(dec);
    if (ready != PCWT_OK) {
        for (size_t i = 0; i < count; i++) /* every job gets a status */
            jobs[i].status = ready;
        return ready;
    }
    for (size_t i = 0; i < count; i++)
        if (!jobs[i].src || !jobs[i].dst) {
            pcwt_set_error(dec->err, sizeof dec->err, "job %zu: NULL buffer", i);
            return PCWT_ERR_INVALID_ARGUMENT;
        }
    pcwt_status st = pcwt_gpu_decode_batch(dec->gpu, dec->max_samples, jobs, count, dec->err, sizeof dec->err);
    if (st == PCWT_ERR_OUT_OF_MEMORY || st == PCWT_OK) {
        /* Codestreams the device had no memory for are decoded on the CPU. */
        st = PCWT_OK;
        for (size_t i = 0; i < count; i++) {
            if (jobs[i].status == PCWT_ERR_OUT_OF_MEMORY)
                jobs[i].status = decode_cpu(dec, jobs[i].src, jobs[i].src_size, jobs[i].dst,
                                            jobs[i].dst_capacity);
            if (st == PCWT_OK)
                st = jobs[i].status;
        }
    } else if (st == PCWT_ERR_BACKEND_UNAVAILABLE) {
        for (size_t i = 0; i < count; i++) /* the call failed as a whole: every job with it */
            jobs[i].status = st;
    }
    return st;
}
#endif

/* One job on the CPU: decoded into the handle's scratch buffer, then compared. */
static pcwt_status verify_cpu(pcwt_decoder *dec, pcwt_verify_job *j)
{
    j->first_difference = UINT64_MAX;
    pcwt_header_info info;
    pcwt_status st = pcwt_header_parse((const uint8_t *)j->src, j->src_size, &info, dec->err,
                                       sizeof dec->err);
    if (st != PCWT_OK)
        return st;
    st = pcwt_decode_check(&info, j->src_size, SIZE_MAX, dec->max_samples, dec->err,
                           sizeof dec->err);
    if (st != PCWT_OK)
        return st;
    const size_t size = pcwt_image_size(&info.desc);
    if (size > dec->scratch_size) {
        uint8_t *p = (uint8_t *)realloc(dec->scratch, size);
        if (!p) {
            pcwt_set_error(dec->err, sizeof dec->err, "out of memory for a %ux%u image",
                           info.desc.width, info.desc.height);
            return PCWT_ERR_OUT_OF_MEMORY;
        }
        dec->scratch = p;
        dec->scratch_size = size;
    }
    st = decode_cpu(dec, j->src, j->src_size, dec->scratch, size);
    if (st != PCWT_OK)
        return st;
    return pcwt_verify_compare(j, dec->scratch, size, dec->err, sizeof dec->err);
}

static pcwt_status verify_job_cpu(pcwt_decoder *dec, void *jobs, size_t i)
{
    pcwt_verify_job *j = (pcwt_verify_job *)jobs + i;
    return j->status = verify_cpu(dec, j);
}

#ifdef PCWT_HAVE_CUDA
static pcwt_status verify_batch_gpu(pcwt_decoder *dec, pcwt_verify_job *jobs, size_t count)
{
    pcwt_status st = ensure_gpu(dec);
    if (st == PCWT_OK)
        st = pcwt_gpu_verify_batch(dec->gpu, dec->max_samples, jobs, count, dec->err, sizeof dec->err);
    if (st == PCWT_ERR_BACKEND_UNAVAILABLE || (st != PCWT_OK && !dec->gpu)) {
        for (size_t i = 0; i < count; i++) /* every job gets a status: none matched */
            jobs[i].status = st;
        return st;
    }
    /* Codestreams the device had no memory for are verified on the CPU. */
    st = PCWT_OK;
    for (size_t i = 0; i < count; i++) {
        if (jobs[i].status == PCWT_ERR_OUT_OF_MEMORY)
            jobs[i].status = verify_cpu(dec, &jobs[i]);
        if (st == PCWT_OK)
            st = jobs[i].status;
    }
    return st;
}
#endif

/* The two kinds of a batch's jobs: size of a job, its bytes; verify: pcwt_verify_job, else
 * pcwt_decode_job. */
typedef struct job_kind {
    size_t size;
    const void *(*src)(const void *jobs, size_t i, size_t *size);
    int verify;
} job_kind;

static const job_kind decode_kind = {sizeof(pcwt_decode_job), decode_src, 0};
static const job_kind verify_kind = {sizeof(pcwt_verify_job), verify_src, 1};

static pcwt_status *status_of(const job_kind *k, void *jobs, size_t i)
{
    return k->verify ? &((pcwt_verify_job *)jobs)[i].status : &((pcwt_decode_job *)jobs)[i].status;
}

/* JPEG 2000 codestreams (a third codec) are decoded by j2k_decoder.c: every job is one. */
static pcwt_status j2k_jobs(pcwt_decoder *dec, void *jobs, size_t count, const job_kind *k)
{
    pcwt_j2k_route r = {dec->max_samples,
                        dec->memory_limit ? dec->memory_limit : pcwt_default_memory_limit(), NULL,
                        dec->err, sizeof dec->err, NULL, 0, 0};
#ifdef PCWT_HAVE_CUDA
    if (use_gpu(dec) && ensure_gpu(dec) == PCWT_OK) {
        r.gpu = dec->gpu;
        if (!dec->j2k_pool)
            dec->j2k_pool = pcwt_j2k_pool_create(); /* NULL: memory per call */
        r.pool = dec->j2k_pool;
    }
#endif
    return k->verify ? pcwt_j2k_verify_jobs(&r, (pcwt_verify_job *)jobs, count)
                     : pcwt_j2k_decode_jobs(&r, (pcwt_decode_job *)jobs, count);
}

/* Verify jobs need a codestream and, unless empty, the expected samples. */
static pcwt_status verify_args(pcwt_decoder *dec, pcwt_verify_job *jobs, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        jobs[i].first_difference = UINT64_MAX;
        if (!jobs[i].src || (!jobs[i].expected && jobs[i].expected_size)) {
            pcwt_set_error(dec->err, sizeof dec->err, "job %zu: NULL buffer", i);
            return PCWT_ERR_INVALID_ARGUMENT;
        }
    }
    return PCWT_OK;
}

/* PCWT codestreams: within the memory budget, on the resolved backend. */
static pcwt_status pcwt_jobs(pcwt_decoder *dec, void *jobs, size_t count, const job_kind *k)
{
    pcwt_status st = k->verify ? verify_args(dec, (pcwt_verify_job *)jobs, count) : PCWT_OK;
    if (st != PCWT_OK)
        return st;
    st = budget_check(dec, jobs, count, k->src, jobs ? status_of(k, jobs, 0) : NULL, k->size);
    if (st != PCWT_OK)
        return st;
#ifdef PCWT_HAVE_CUDA
    if (use_gpu(dec))
        return k->verify ? verify_batch_gpu(dec, (pcwt_verify_job *)jobs, count)
                         : decode_batch_gpu(dec, (pcwt_decode_job *)jobs, count);
#endif
    return each_on_cpu(dec, jobs, count, k->verify ? verify_job_cpu : decode_job_cpu);
}

/* One part of a batch, all JPEG 2000 (j2k) or all PCWT, as a batch; a call that fails before
 * it looks at the jobs (a NULL buffer) gives its status to every job of the part. */
static void run_part(pcwt_decoder *dec, char *jobs, size_t count, const job_kind *k, int j2k)
{
    const pcwt_status st = j2k ? j2k_jobs(dec, jobs, count, k) : pcwt_jobs(dec, jobs, count, k);
    if (st == PCWT_OK)
        return;
    for (size_t i = 0; i < count; i++)
        if (*status_of(k, jobs, i) != PCWT_OK)
            return;
    for (size_t i = 0; i < count; i++)
        *status_of(k, jobs, i) = st;
}

/* A batch cut once into its JPEG 2000 and its PCWT codestreams, each part decoded as a batch;
 * the statuses (and verify results) go back to the caller's jobs, the first failing job's
 * status is returned with its part's message. */
static pcwt_status partitioned(pcwt_decoder *dec, void *jobs, size_t count, const job_kind *k)
{
    if (!dec || (!jobs && count))
        return PCWT_ERR_INVALID_ARGUMENT;
    dec->err[0] = 0;
    unsigned char *is_j2k = count ? (unsigned char *)malloc(count) : NULL;
    if (count && !is_j2k) {
        pcwt_set_error(dec->err, sizeof dec->err, "out of memory for a batch of %zu jobs", count);
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        size_t size;
        const void *src = k->src(jobs, i, &size);
        is_j2k[i] = (unsigned char)pcwt_j2k_is_codestream(src, size);
        n += is_j2k[i];
    }
    if (n == 0 || n == count) {
        free(is_j2k);
        return n ? j2k_jobs(dec, jobs, count, k) : pcwt_jobs(dec, jobs, count, k);
    }
    /* the JPEG 2000 jobs first, then the PCWT ones, in the caller's order within each part */
    char *parts = (char *)malloc(count * k->size);
    if (!parts) {
        free(is_j2k);
        pcwt_set_error(dec->err, sizeof dec->err, "out of memory for a batch of %zu jobs", count);
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0, a = 0, b = n; i < count; i++)
        memcpy(parts + (is_j2k[i] ? a++ : b++) * k->size, (char *)jobs + i * k->size, k->size);
    char err_j2k[sizeof dec->err];
    run_part(dec, parts, n, k, 1);
    memcpy(err_j2k, dec->err, sizeof err_j2k);
    dec->err[0] = 0;
    run_part(dec, parts + n * k->size, count - n, k, 0);
    pcwt_status first = PCWT_OK;
    for (size_t i = 0, a = 0, b = n; i < count; i++) {
        const size_t at = is_j2k[i] ? a++ : b++;
        memcpy((char *)jobs + i * k->size, parts + at * k->size, k->size);
        if (first != PCWT_OK || (first = *status_of(k, jobs, i)) == PCWT_OK)
            continue;
        if (is_j2k[i]) /* the message of the first failing job's part */
            memcpy(dec->err, err_j2k, sizeof err_j2k);
    }
    free(parts);
    free(is_j2k);
    return first;
}

pcwt_status pcwt_decode(pcwt_decoder *dec, const void *src, size_t src_size, void *dst,
                        size_t dst_capacity)
{
    if (!dec)
        return PCWT_ERR_INVALID_ARGUMENT;
    dec->err[0] = 0;
    pcwt_decode_job job = {src, src_size, dst, dst_capacity, PCWT_OK};
    return pcwt_j2k_is_codestream(src, src_size) ? j2k_jobs(dec, &job, 1, &decode_kind)
                                                 : pcwt_jobs(dec, &job, 1, &decode_kind);
}

pcwt_status pcwt_decode_batch(pcwt_decoder *dec, pcwt_decode_job *jobs, size_t count)
{
    return partitioned(dec, jobs, count, &decode_kind);
}

pcwt_status pcwt_verify_batch(pcwt_decoder *dec, pcwt_verify_job *jobs, size_t count)
{
    return partitioned(dec, jobs, count, &verify_kind);
}
