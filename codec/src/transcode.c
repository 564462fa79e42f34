/* transcode.c - pcwt_transcode_batch (pcwt.h, docs/transcode.md): a batch decoded, coded again
 * and verified through the public batch calls, the samples handed over in one buffer the
 * transcoder keeps. With both handles on the GPU of one device that buffer is managed memory
 * placed on the device (cuda/device_samples.cu), which the batch calls' device copies read and
 * write without staging: the samples do not cross to the host between the three stages. */
#include "transcode.h"

#include "status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef PCWT_HAVE_CUDA
#include "gpu_backend.h"
#endif

struct pcwt_transcoder {
    pcwt_decoder *dec;
    pcwt_encoder *enc;
    void *buf;      /* the samples of a batch */
    size_t cap;
    int managed;    /* buf: managed memory on device `device`, else pcwt_host_alloc's */
    int device;
    size_t fault;   /* pcwt_transcoder_test_fault */
    char err[256];
};

pcwt_transcoder *pcwt_transcoder_create(pcwt_decoder *dec, pcwt_encoder *enc)
{
    if (!dec || !enc)
        return NULL;
    pcwt_transcoder *t = calloc(1, sizeof *t);
    if (t) {
        t->dec = dec;
        t->enc = enc;
        t->fault = SIZE_MAX;
    }
    return t;
}

static void release(pcwt_transcoder *t)
{
#ifdef PCWT_HAVE_CUDA
    if (t->managed)
        pcwt_gpu_managed_free(t->device, t->buf);
    else
#endif
        pcwt_host_free(t->buf);
    t->buf = NULL;
    t->cap = 0;
    t->managed = 0;
}

void pcwt_transcoder_destroy(pcwt_transcoder *t)
{
    if (!t)
        return;
    release(t);
    free(t);
}

const char *pcwt_transcoder_last_error(const pcwt_transcoder *t)
{
    return t ? t->err : "NULL transcoder";
}

void pcwt_transcoder_test_fault(pcwt_transcoder *t, size_t job)
{
    if (t)
        t->fault = job;
}

/* The device both handles run on, or -1 when the samples go through host memory. */
static int shared_device(const pcwt_transcoder *t)
{
#ifdef PCWT_HAVE_CUDA
    int64_t dd = 0, de = 0;
    if (pcwt_decoder_backend(t->dec) != PCWT_BACKEND_GPU || pcwt_encoder_backend(t->enc) != PCWT_BACKEND_GPU ||
        pcwt_decoder_get_option(t->dec, PCWT_OPT_DEVICE, &dd) != PCWT_OK ||
        pcwt_encoder_get_option(t->enc, PCWT_OPT_DEVICE, &de) != PCWT_OK || dd != de)
        return -1;
    return (int)dd;
#else
    (void)t;
    return -1;
#endif
}

/* At least size bytes, on the device when device >= 0 and it has them, else on the host.
 * 0 when neither. */
static int reserve(pcwt_transcoder *t, size_t size, int device)
{
    const int managed = device >= 0;
    if (t->buf && t->cap >= size && t->managed == managed && (!managed || t->device == device))
        return 1;
    release(t);
#ifdef PCWT_HAVE_CUDA
    if (managed) {
        t->buf = pcwt_gpu_managed_alloc(device, size);
        if (t->buf) {
            t->cap = size;
            t->managed = 1;
            t->device = device;
            return 1;
        }
    }
#endif
    t->buf = pcwt_host_alloc(size ? size : 1);
    t->cap = t->buf ? size : 0;
    return t->buf != NULL;
}

/* A job's failure: its status, no codestream, the first failure's message kept. */
static void fail(pcwt_transcoder *t, pcwt_transcode_job *j, size_t i, pcwt_status st, const char *stage,
                 const char *why)
{
    j->status = st;
    j->written = 0;
    if (!t->err[0])
        pcwt_set_error(t->err, sizeof t->err, "job %zu: %s: %s", i, stage, why && why[0] ? why : pcwt_status_string(st));
}

/* Each job's header and the batch's sample bytes (each frame's offset in off). */
static size_t prepare(pcwt_transcoder *t, pcwt_transcode_job *jobs, size_t count, size_t *off)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        pcwt_transcode_job *j = &jobs[i];
        memset(&j->desc, 0, sizeof j->desc);
        j->written = 0;
        j->on_device = 0;
        j->status = PCWT_OK;
        if (!j->src || !j->dst) {
            fail(t, j, i, PCWT_ERR_INVALID_ARGUMENT, "arguments", "NULL buffer");
            continue;
        }
        pcwt_header_info info;
        const pcwt_status st = pcwt_read_header(j->src, j->src_size, &info);
        if (st != PCWT_OK) {
            fail(t, j, i, st, "reading the header", NULL);
            continue;
        }
        j->desc = info.desc;
        const size_t size = pcwt_image_size(&j->desc);
        if (j->samples && j->samples_capacity < size) {
            char why[96];
            pcwt_set_error(why, sizeof why, "sample buffer of %zu bytes, the image needs %zu", j->samples_capacity, size);
            fail(t, j, i, PCWT_ERR_INVALID_ARGUMENT, "arguments", why);
            continue;
        }
        off[i] = total;
        total += (size + 63) & ~(size_t)63;
    }
    return total;
}

/* The three stages, each one batch call over the jobs still going. */
static void stages(pcwt_transcoder *t, pcwt_transcode_job *jobs, size_t count, const size_t *off, size_t *idx)
{
    uint8_t *buf = (uint8_t *)t->buf;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (jobs[i].status == PCWT_OK)
            idx[n++] = i;
    pcwt_decode_job *d = calloc(n ? n : 1, sizeof *d);
    pcwt_frame_job *e = calloc(n ? n : 1, sizeof *e);
    pcwt_verify_job *v = calloc(n ? n : 1, sizeof *v);
    if (!d || !e || !v) {
        for (size_t k = 0; k < n; k++)
            fail(t, &jobs[idx[k]], idx[k], PCWT_ERR_OUT_OF_MEMORY, "arguments", "out of memory");
        n = 0;
    }
    for (size_t k = 0; k < n; k++) {
        const pcwt_transcode_job *j = &jobs[idx[k]];
        d[k].src = j->src;
        d[k].src_size = j->src_size;
        d[k].dst = buf + off[idx[k]];
        d[k].dst_capacity = pcwt_image_size(&j->desc);
        d[k].status = PCWT_ERR_INVALID_ARGUMENT; /* until the decoder says otherwise */
    }
    /* each stage's jobs' statuses decide (a call refused as a whole leaves them not OK) */
    pcwt_status st = pcwt_decode_batch(t->dec, d, n);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        pcwt_transcode_job *j = &jobs[idx[k]];
        if (d[k].status != PCWT_OK) {
            fail(t, j, idx[k], d[k].status, "decoding", pcwt_decoder_last_error(t->dec));
            continue;
        }
        pcwt_frame_job f = {j->desc, d[k].dst, d[k].dst_capacity, j->dst, j->dst_capacity, 0,
                            PCWT_ERR_INVALID_ARGUMENT};
        e[m] = f;
        idx[m++] = idx[k];
    }
    st = pcwt_encode_batch(t->enc, e, m);
    n = 0;
    for (size_t k = 0; k < m; k++) {
        pcwt_transcode_job *j = &jobs[idx[k]];
        if (e[k].status != PCWT_OK) {
            fail(t, j, idx[k], e[k].status, "coding", pcwt_encoder_last_error(t->enc));
            continue;
        }
        j->written = e[k].written;
        if (idx[k] == t->fault)
            ((uint8_t *)e[k].samples)[e[k].samples_size / 2] ^= 1;
        pcwt_verify_job w = {j->dst, j->written, e[k].samples, e[k].samples_size, UINT64_MAX,
                             PCWT_ERR_INVALID_ARGUMENT};
        v[n] = w;
        idx[n++] = idx[k];
    }
    st = pcwt_verify_batch(t->dec, v, n);
    (void)st;
    for (size_t k = 0; k < n; k++)
        if (v[k].status != PCWT_OK)
            fail(t, &jobs[idx[k]], idx[k], v[k].status, "verifying the written codestream",
                 pcwt_decoder_last_error(t->dec));
    free(d);
    free(e);
    free(v);
}

/* The decoded samples to the jobs that asked for them. */
static void give_samples(pcwt_transcoder *t, pcwt_transcode_job *jobs, size_t count, const size_t *off)
{
    for (size_t i = 0; i < count; i++) {
        pcwt_transcode_job *j = &jobs[i];
        if (!j->samples || (j->status != PCWT_OK && j->status != PCWT_ERR_MISMATCH))
            continue;
        const uint8_t *from = (const uint8_t *)t->buf + off[i];
        const size_t size = pcwt_image_size(&j->desc);
#ifdef PCWT_HAVE_CUDA
        if (t->managed) {
            char why[160] = "";
            const pcwt_status st = pcwt_gpu_copy(j->samples, from, size, why, sizeof why);
            if (st != PCWT_OK)
                fail(t, j, i, st, "copying the samples back", why);
            continue;
        }
#endif
        memcpy(j->samples, from, size);
    }
}

pcwt_status pcwt_transcode_batch(pcwt_transcoder *t, pcwt_transcode_job *jobs, size_t count)
{
    if (!t || (!jobs && count))
        return PCWT_ERR_INVALID_ARGUMENT;
    t->err[0] = 0;
    size_t *off = calloc(count ? count : 1, sizeof *off);
    size_t *idx = calloc(count ? count : 1, sizeof *idx);
    if (!off || !idx) {
        free(off);
        free(idx);
        for (size_t i = 0; i < count; i++)
            fail(t, &jobs[i], i, PCWT_ERR_OUT_OF_MEMORY, "arguments", "out of memory");
        return count ? PCWT_ERR_OUT_OF_MEMORY : PCWT_OK;
    }
    const size_t total = prepare(t, jobs, count, off);
    if (!reserve(t, total, shared_device(t))) {
        char why[96];
        pcwt_set_error(why, sizeof why, "no memory for %zu bytes of samples", total);
        for (size_t i = 0; i < count; i++)
            if (jobs[i].status == PCWT_OK)
                fail(t, &jobs[i], i, PCWT_ERR_OUT_OF_MEMORY, "arguments", why);
    } else {
        stages(t, jobs, count, off, idx);
        give_samples(t, jobs, count, off);
        for (size_t i = 0; i < count; i++)
            jobs[i].on_device = jobs[i].status == PCWT_OK && t->managed;
    }
    free(off);
    free(idx);
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count && first == PCWT_OK; i++)
        first = jobs[i].status;
    return first;
}
