/* decoder.c - sequences the decoder: header validation and limits before any allocation, then
 * per plane: CRC check, group decoding, inverse B-LDWT+B, range-checked store into the caller's
 * buffer. Every byte of the codestream is treated as untrusted. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct pcwt_decoder {
    uint64_t max_samples;
    pcwt_backend backend;
    pcwt_pyramid pyr; /* reused across calls */
    char err[256];
};

pcwt_decoder *pcwt_decoder_create(void)
{
    pcwt_decoder *d = calloc(1, sizeof *d);
    if (d) {
        d->max_samples = (uint64_t)1 << 30;
        d->backend = PCWT_BACKEND_AUTO;
    }
    return d;
}

void pcwt_decoder_destroy(pcwt_decoder *d)
{
    if (!d)
        return;
    pcwt_pyramid_free(&d->pyr);
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

pcwt_status pcwt_decoder_set_backend(pcwt_decoder *d, pcwt_backend backend)
{
    if (!d)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->err[0] = 0;
    if (backend == PCWT_BACKEND_GPU) {
        pcwt_set_error(d->err, sizeof d->err, "GPU backend not available in this build");
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    if (backend != PCWT_BACKEND_AUTO && backend != PCWT_BACKEND_CPU)
        return PCWT_ERR_INVALID_ARGUMENT;
    d->backend = backend;
    return PCWT_OK;
}

pcwt_status pcwt_decode(pcwt_decoder *dec, const void *src, size_t src_size, void *dst,
                        size_t dst_capacity)
{
    if (!dec)
        return PCWT_ERR_INVALID_ARGUMENT;
    char *err = dec->err;
    const size_t es = sizeof dec->err;
    err[0] = 0;
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
    const uint64_t samples = (uint64_t)d->width * d->height * d->components;
    if (samples > dec->max_samples) {
        pcwt_set_error(err, es, "image of %llu samples exceeds the limit of %llu",
                       (unsigned long long)samples, (unsigned long long)dec->max_samples);
        return PCWT_ERR_LIMIT_EXCEEDED;
    }
    if (src_size < info.codestream_length) {
        pcwt_set_error(err, es, "codestream truncated: %zu of %zu bytes", src_size,
                       info.codestream_length);
        return PCWT_ERR_TRUNCATED;
    }
    if (dst_capacity < pcwt_image_size(d)) {
        pcwt_set_error(err, es, "destination buffer of %zu bytes too small, %zu needed",
                       dst_capacity, pcwt_image_size(d));
        return PCWT_ERR_BUFFER_TOO_SMALL;
    }
    pcwt_plan plan;
    pcwt_plan_make(&plan, d->height, d->width, info.levels);
    pcwt_pyramid *pyr = &dec->pyr;
    if (pcwt_pyramid_prepare(pyr, &plan) != PCWT_OK) {
        pcwt_set_error(err, es, "out of memory for a %ux%u image", d->width, d->height);
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    size_t off = info.header_length;
    const uint32_t stride = pcwt_even_up(d->width);
    for (uint32_t i = 0; i < info.plane_count; i++) {
        const size_t len = (size_t)info.planes[i].payload_length;
        const uint8_t *payload = s + off;
        off += len;
#ifndef PCWT_FUZZING_SKIP_CRC
        if (pcwt_crc32(payload, len) != info.planes[i].payload_crc32) {
            pcwt_set_error(err, es, "plane %u: payload checksum mismatch", i);
            return PCWT_ERR_CRC_MISMATCH;
        }
#endif
        char why[160];
        st = pcwt_payload_decode(pyr, info.planes[i].qmax, info.group_rows, info.group_cols,
                                 payload, len, why, sizeof why);
        if (st != PCWT_OK) {
            pcwt_set_error(err, es, "plane %u: %s", i, why);
            return st;
        }
        pcwt_dwt53_inverse(pyr);
        if (!pcwt_plane_store(d, dst, info.planes[i].component, info.planes[i].kind, pyr->image,
                              stride)) {
            pcwt_set_error(err, es, "plane %u: decoded sample out of range", i);
            return PCWT_ERR_CORRUPT;
        }
    }
    return PCWT_OK;
}
