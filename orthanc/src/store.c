/* store.c - the storage area: coding decisions, writes, reads, removals (store.h). */
#include "store.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"
#include "container.h"
#include "dicom_scan.h"
#include "storage_files.h"

/* Coders are kept between calls (a GPU handle's context is costly to make); a call takes one
 * pair from the pool, or makes one when all are in use, so concurrent uploads code in parallel. */
typedef struct coder_pair {
    pcwt_encoder *enc;
    pcwt_decoder *dec;
    struct coder_pair *next;
} coder_pair;

struct pco_store {
    pco_config cfg;
    pthread_mutex_t lock;
    coder_pair *idle;
    coder_pair *batch_pair; /* the batcher's coders, when concurrent writes are batched */
    pco_batcher *batcher;
    pco_stored_fn deferred; /* the deferred mode's queue (pco_store_defer) */
    void *deferred_user;
};

static pco_result fail(pco_result r, char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return r;
}

static void pair_destroy(coder_pair *p)
{
    if (!p) return;
    pcwt_encoder_destroy(p->enc);
    pcwt_decoder_destroy(p->dec);
    free(p);
}

static coder_pair *pair_create(const pco_config *cfg, char *msg, size_t msg_size)
{
    coder_pair *p = calloc(1, sizeof *p);
    if (!p || !(p->enc = pcwt_encoder_create()) || !(p->dec = pcwt_decoder_create())) {
        pair_destroy(p);
        fail(PCO_ERR_MEMORY, msg, msg_size, "out of memory creating coders");
        return NULL;
    }
    pcwt_status st = pcwt_encoder_set_option(p->enc, PCWT_OPT_PROFILE, cfg->profile);
    if (st == PCWT_OK) st = pcwt_encoder_set_option(p->enc, PCWT_OPT_BACKEND, cfg->backend);
    if (st != PCWT_OK) {
        fail(PCO_ERR_REFUSED, msg, msg_size, "%s", pcwt_encoder_last_error(p->enc));
        pair_destroy(p);
        return NULL;
    }
    st = pcwt_decoder_set_option(p->dec, PCWT_OPT_BACKEND, cfg->backend);
    if (st != PCWT_OK) {
        fail(PCO_ERR_REFUSED, msg, msg_size, "%s", pcwt_decoder_last_error(p->dec));
        pair_destroy(p);
        return NULL;
    }
    return p;
}

static coder_pair *take(pco_store *s, char *msg, size_t msg_size)
{
    pthread_mutex_lock(&s->lock);
    coder_pair *p = s->idle;
    if (p) s->idle = p->next;
    pthread_mutex_unlock(&s->lock);
    return p ? p : pair_create(&s->cfg, msg, msg_size);
}

static void give(pco_store *s, coder_pair *p)
{
    pthread_mutex_lock(&s->lock);
    p->next = s->idle;
    s->idle = p;
    pthread_mutex_unlock(&s->lock);
}

pco_store *pco_store_create(const pco_config *cfg, char *msg, size_t msg_size)
{
    pco_store *s = calloc(1, sizeof *s);
    if (!s) {
        fail(PCO_ERR_MEMORY, msg, msg_size, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    pthread_mutex_init(&s->lock, NULL);
    (void)mkdir(cfg->storage_dir, 0755); /* as Orthanc makes its storage folder; exists: fine */
    /* One pair now: a backend that is not there (gpu without a device) is refused at start. */
    coder_pair *p = pair_create(cfg, msg, msg_size);
    if (!p) {
        pco_store_destroy(s);
        return NULL;
    }
    s->idle = p;
    /* Concurrent writes gathered into one coding call: by default where the encoder codes on the
     * GPU (BatchWindowMs -1), or with any backend when a window is set. */
    const int gpu = pcwt_encoder_backend(p->enc) == PCWT_BACKEND_GPU;
    if (cfg->batch_window_us > 0 || (cfg->batch_window_us < 0 && gpu)) {
        const unsigned window = cfg->batch_window_us > 0 ? (unsigned)cfg->batch_window_us : PCO_DEFAULT_BATCH_WINDOW_US;
        s->batch_pair = pair_create(cfg, msg, msg_size);
        if (!s->batch_pair || !(s->batcher = pco_batcher_create(s->batch_pair->enc, s->batch_pair->dec, window,
                                                                 PCO_BATCH_MAX_FRAMES))) {
            if (s->batch_pair) fail(PCO_ERR_MEMORY, msg, msg_size, "out of memory creating the batcher");
            pco_store_destroy(s);
            return NULL;
        }
    }
    return s;
}

int pco_store_batching(const pco_store *s) { return s->batcher != NULL; }

void pco_store_batch_counts(pco_store *s, unsigned long long *batches, unsigned long long *frames)
{
    *batches = *frames = 0;
    if (s->batcher) pco_batcher_counts(s->batcher, batches, frames);
}

static int batch_code(void *user, pcwt_frame_job *jobs, size_t count, char *msg, size_t msg_size)
{
    return pco_batcher_code(user, jobs, count, msg, msg_size);
}

void pco_store_destroy(pco_store *s)
{
    if (!s) return;
    pco_batcher_destroy(s->batcher);
    pair_destroy(s->batch_pair);
    while (s->idle) {
        coder_pair *next = s->idle->next;
        pair_destroy(s->idle);
        s->idle = next;
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const pco_config *pco_store_config(const pco_store *s) { return &s->cfg; }

pco_result pco_store_prepare(pco_store *s, const uint8_t *data, size_t size, int is_dicom,
                             uint8_t **out, size_t *out_size, int *coded, char *note, size_t note_size)
{
    *out = NULL;
    *out_size = 0;
    *coded = 0;
    if (note && note_size) note[0] = '\0';
    if (is_dicom && s->cfg.compress_dicom) {
        pco_scan scan;
        if (!pco_dicom_scan(data, size, &scan, note, note_size)) {
            /* stored as it came */
        } else if (scan.pixel_length < s->cfg.minimum_pixel_bytes) {
            fail(PCO_OK, note, note_size, "pixel data below MinimumPixelBytes");
        } else {
            coder_pair *p = s->batcher ? NULL : take(s, note, note_size);
            if (p || s->batcher) {
                int rc = p ? pco_container_build(data, size, &scan, p->enc, p->dec, out, out_size, note, note_size)
                           : pco_container_build_with(data, size, &scan, batch_code, s->batcher, out, out_size,
                                                      note, note_size);
                if (p) give(s, p);
                if (rc == 0 && *out_size < size) {
                    *coded = 1;
                    return PCO_OK;
                }
                if (rc == 0) {
                    fail(PCO_OK, note, note_size, "coding would not make it smaller");
                    free(*out);
                    *out = NULL;
                    *out_size = 0;
                }
            }
            /* a file the codec could not code (or give back) is kept as it came: never lost */
        }
    }
    if (pco_is_container(data, size)) {
        char msg[160];
        if (pco_container_raw(data, size, out, out_size, msg, sizeof msg) != 0) return PCO_ERR_MEMORY;
    }
    return PCO_OK;
}

void pco_store_defer(pco_store *s, pco_stored_fn fn, void *user)
{
    s->deferred = fn;
    s->deferred_user = user;
}

pco_result pco_store_write(pco_store *s, const char *uuid, const void *data, size_t size, int is_dicom,
                           char *msg, size_t msg_size)
{
    char path[4200];
    if (pco_storage_path(s->cfg.storage_dir, uuid, path, sizeof path) != 0)
        return fail(PCO_ERR_REFUSED, msg, msg_size, "not an attachment name: '%s'", uuid);
    uint8_t *stored = NULL;
    size_t stored_size = 0;
    int coded = 0;
    char note[256];
    /* Deferred: as it came now (durable as Orthanc's own storage makes it), coded later. */
    const int defer = s->deferred && is_dicom && s->cfg.compress_dicom;
    pco_result r = pco_store_prepare(s, data, size, defer ? 0 : is_dicom, &stored, &stored_size, &coded, note,
                                     sizeof note);
    if (r != PCO_OK) return fail(r, msg, msg_size, "out of memory storing %s", uuid);
    int rc = stored ? pco_write_atomic(path, stored, stored_size, s->cfg.sync, msg, msg_size)
                    : pco_write_atomic(path, data, size, s->cfg.sync, msg, msg_size);
    free(stored);
    if (rc != 0) return PCO_ERR_IO;
    if (defer && !stored) s->deferred(s->deferred_user, uuid);
    return PCO_OK;
}

pco_result pco_store_decode(pco_store *s, const uint8_t *stored, size_t size, pco_alloc_fn alloc,
                            void *user, char *msg, size_t msg_size)
{
    if (!pco_is_container(stored, size)) {
        if (!s->cfg.read_plain_files) return fail(PCO_ERR_REFUSED, msg, msg_size, "plain file (ReadPlainFiles is off)");
        uint8_t *dst = alloc(user, size);
        if (!dst && size) return fail(PCO_ERR_MEMORY, msg, msg_size, "out of memory");
        if (size) memcpy(dst, stored, size);
        return PCO_OK;
    }
    uint64_t original = 0;
    if (pco_container_original_size(stored, size, &original, msg, msg_size) != 0) return PCO_ERR_DAMAGED;
    uint8_t *dst = alloc(user, original);
    if (!dst && original) return fail(PCO_ERR_MEMORY, msg, msg_size, "out of memory");
    coder_pair *p = take(s, msg, msg_size);
    if (!p) return PCO_ERR_MEMORY;
    int rc = pco_container_decode(stored, size, p->dec, dst, original, msg, msg_size);
    give(s, p);
    return rc == 0 ? PCO_OK : PCO_ERR_DAMAGED;
}

static pco_result load(pco_store *s, const char *uuid, uint8_t **data, size_t *size, char *msg, size_t msg_size)
{
    char path[4200];
    if (pco_storage_path(s->cfg.storage_dir, uuid, path, sizeof path) != 0)
        return fail(PCO_ERR_REFUSED, msg, msg_size, "not an attachment name: '%s'", uuid);
    int missing = 0;
    if (pco_read_file(path, data, size, &missing, msg, msg_size) != 0) return missing ? PCO_ERR_MISSING : PCO_ERR_IO;
    return PCO_OK;
}

pco_result pco_store_read(pco_store *s, const char *uuid, pco_alloc_fn alloc, void *user, char *msg, size_t msg_size)
{
    uint8_t *data = NULL;
    size_t size = 0;
    pco_result r = load(s, uuid, &data, &size, msg, msg_size);
    if (r == PCO_OK) r = pco_store_decode(s, data, size, alloc, user, msg, msg_size);
    free(data);
    return r;
}

pco_result pco_store_read_range(pco_store *s, const char *uuid, uint64_t start, void *dst, uint64_t length,
                                char *msg, size_t msg_size)
{
    char path[4200];
    if (pco_storage_path(s->cfg.storage_dir, uuid, path, sizeof path) != 0)
        return fail(PCO_ERR_REFUSED, msg, msg_size, "not an attachment name: '%s'", uuid);
    int container = 0, missing = 0;
    if (!s->cfg.read_plain_files) {
        container = 1; /* read whole below, where a plain file is refused */
    } else if (pco_read_plain_range(path, start, dst, length, &container, &missing, msg, msg_size) != 0) {
        return missing ? PCO_ERR_MISSING : PCO_ERR_REFUSED;
    }
    if (!container) return PCO_OK;

    uint8_t *data = NULL;
    size_t size = 0;
    pco_result r = load(s, uuid, &data, &size, msg, msg_size);
    if (r != PCO_OK) return r;
    if (!pco_is_container(data, size)) {
        r = fail(PCO_ERR_REFUSED, msg, msg_size, "plain file (ReadPlainFiles is off)");
    } else {
        coder_pair *p = take(s, msg, msg_size);
        if (!p) r = PCO_ERR_MEMORY;
        else {
            if (pco_container_read_range(data, size, p->dec, start, dst, length, msg, msg_size) != 0) r = PCO_ERR_DAMAGED;
            give(s, p);
        }
    }
    free(data);
    return r;
}

pco_result pco_store_remove(pco_store *s, const char *uuid, char *msg, size_t msg_size)
{
    char path[4200];
    if (pco_storage_path(s->cfg.storage_dir, uuid, path, sizeof path) != 0)
        return fail(PCO_ERR_REFUSED, msg, msg_size, "not an attachment name: '%s'", uuid);
    return pco_remove_file(path, msg, msg_size) == 0 ? PCO_OK : PCO_ERR_IO;
}
