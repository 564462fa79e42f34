/* batch.c - concurrent writes' frames coded together (batch.h). */
#define _GNU_SOURCE
#include "batch.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "message.h"

typedef struct request {
    pcwt_frame_job *jobs;
    size_t count;
    int done;
    int rc;
    char msg[256];
    struct request *next;
} request;

struct pco_batcher {
    pcwt_encoder *enc;
    pcwt_decoder *dec;
    unsigned window_us;
    size_t max_frames;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    request *pending, **tail;
    size_t pending_frames;
    int leading; /* a thread is gathering or coding a batch */
    unsigned long long batches, frames;
};

pco_batcher *pco_batcher_create(pcwt_encoder *enc, pcwt_decoder *dec, unsigned window_us, size_t max_frames)
{
    pco_batcher *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->enc = enc;
    b->dec = dec;
    b->window_us = window_us;
    b->max_frames = max_frames ? max_frames : 1;
    b->tail = &b->pending;
    pthread_mutex_init(&b->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cond, &attr);
    pthread_condattr_destroy(&attr);
    return b;
}

void pco_batcher_destroy(pco_batcher *b)
{
    if (!b) return;
    pthread_cond_destroy(&b->cond);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

void pco_batcher_counts(pco_batcher *b, unsigned long long *batches, unsigned long long *frames)
{
    pthread_mutex_lock(&b->lock);
    *batches = b->batches;
    *frames = b->frames;
    pthread_mutex_unlock(&b->lock);
}

static void fail_all(request *list, const char *fmt, const char *why)
{
    for (request *r = list; r; r = r->next) {
        r->rc = -1;
        snprintf(r->msg, sizeof r->msg, fmt, why);
    }
}

/* Code the frames of every request of list in one encode and one verification call. */
static void code_list(pco_batcher *b, request *list)
{
    size_t total = 0;
    for (request *r = list; r; r = r->next) total += r->count;
    pcwt_frame_job *all = calloc(total ? total : 1, sizeof *all);
    pcwt_verify_job *checks = calloc(total ? total : 1, sizeof *checks);
    if (!all || !checks) {
        fail_all(list, "%s", "out of memory gathering frames");
        free(all);
        free(checks);
        return;
    }
    size_t k = 0;
    for (request *r = list; r; r = r->next)
        for (size_t i = 0; i < r->count; ++i) all[k++] = r->jobs[i];
    pcwt_status st = pcwt_encode_batch(b->enc, all, total);
    const char *enc_error = st == PCWT_OK ? "" : pcwt_encoder_last_error(b->enc);
    size_t n = 0;
    for (size_t i = 0; i < total; ++i) {
        if (all[i].status != PCWT_OK) continue;
        checks[n].src = all[i].dst;
        checks[n].src_size = all[i].written;
        checks[n].expected = all[i].samples;
        checks[n].expected_size = all[i].samples_size;
        ++n;
    }
    if (n) {
        pcwt_status vst = pcwt_verify_batch(b->dec, checks, n);
        (void)vst; /* each job's status is read below */
    }

    k = 0;
    n = 0;
    for (request *r = list; r; r = r->next) {
        r->rc = 0;
        for (size_t i = 0; i < r->count; ++i, ++k) {
            r->jobs[i].written = all[k].written;
            r->jobs[i].status = all[k].status;
            if (all[k].status != PCWT_OK) {
                if (r->rc == 0)
                    snprintf(r->msg, sizeof r->msg, "encoding failed: %s (%s)", pcwt_status_string(all[k].status),
                             enc_error);
                r->rc = -1;
                continue;
            }
            const pcwt_verify_job *v = &checks[n++];
            if (v->status != PCWT_OK && r->rc == 0) {
                snprintf(r->msg, sizeof r->msg, "verification failed: frame %zu %s (%s)", i,
                         v->status == PCWT_ERR_MISMATCH ? "decodes to other samples" : pcwt_status_string(v->status),
                         v->status == PCWT_ERR_MISMATCH ? "" : pcwt_decoder_last_error(b->dec));
                r->rc = -1;
            }
        }
    }
    free(all);
    free(checks);
}

static void deadline_after(struct timespec *t, unsigned us)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_nsec += (long)(us % 1000000u) * 1000L;
    t->tv_sec += (time_t)(us / 1000000u) + t->tv_nsec / 1000000000L;
    t->tv_nsec %= 1000000000L;
}

int pco_batcher_code(pco_batcher *b, pcwt_frame_job *jobs, size_t count, char *msg, size_t msg_size)
{
    request req;
    memset(&req, 0, sizeof req);
    req.jobs = jobs;
    req.count = count;
    pthread_mutex_lock(&b->lock);
    *b->tail = &req;
    b->tail = &req.next;
    b->pending_frames += count;
    pthread_cond_broadcast(&b->cond); /* a gathering leader checks max_frames */
    while (!req.done) {
        if (b->leading) {
            pthread_cond_wait(&b->cond, &b->lock);
            continue;
        }
        /* Lead: gather for the window (or until the batch is full), then code what came. */
        b->leading = 1;
        struct timespec deadline;
        deadline_after(&deadline, b->window_us);
        while (b->pending_frames < b->max_frames)
            if (pthread_cond_timedwait(&b->cond, &b->lock, &deadline) == ETIMEDOUT) break;
        request *list = b->pending;
        b->pending = NULL;
        b->tail = &b->pending;
        size_t frames = b->pending_frames;
        b->pending_frames = 0;
        pthread_mutex_unlock(&b->lock);

        code_list(b, list);

        pthread_mutex_lock(&b->lock);
        for (request *r = list, *next; r; r = next) {
            next = r->next; /* r may be gone once done is seen */
            r->done = 1;
        }
        b->batches++;
        b->frames += frames;
        b->leading = 0;
        pthread_cond_broadcast(&b->cond);
    }
    pthread_mutex_unlock(&b->lock);
    if (req.rc != 0) return pco_fail(msg, msg_size, "%s", req.msg);
    return 0;
}
