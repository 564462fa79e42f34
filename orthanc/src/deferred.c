/* deferred.c - background coding of files stored as they came (deferred.h). */
#define _GNU_SOURCE
#include "deferred.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "message.h"
#include "migrate.h"
#include "storage_files.h"

/* The coders start a file only once no write came for QUIET_MS (their syncs and reads would
 * slow the writes of a burst: the disk's journal is shared), or once the file waited MAX_DELAY_MS
 * (so that a steady stream of writes does not hold the coding back for ever). */
#define QUIET_MS 200
#define MAX_DELAY_MS 10000

typedef struct item {
    char uuid[40];
    int64_t queued_ms;
    struct item *next;
} item;

struct pco_deferred {
    pco_store *store;
    char root[4096];
    pco_log_fn log;
    void *log_user;
    pthread_t *threads;
    unsigned count;
    int idle; /* the coders' priority: idle (1) or the caller's */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    item *head, **tail;
    int stop;
    int walk_pending; /* the start's walk of the folder is to be done, or under way */
    unsigned busy;    /* files being coded */
    int nothing_lost; /* cleared when the queue could not take a file (out of memory) */
    int worked;       /* files were coded since the coders were last idle */
    int64_t last_write_ms; /* when the last file was queued */
    pco_deferred_counts counts;
};

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void wait_until(pco_deferred *d, int64_t ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    (void)pthread_cond_timedwait(&d->cond, &d->lock, &t);
}

/* Wait (lock held) until no write came for QUIET_MS, or since_ms + MAX_DELAY_MS, or a stop. */
static void wait_quiet(pco_deferred *d, int64_t since_ms)
{
    for (;;) {
        const int64_t now = now_ms(), quiet = d->last_write_ms + QUIET_MS, late = since_ms + MAX_DELAY_MS;
        if (d->stop || now >= quiet || now >= late) return;
        wait_until(d, quiet < late ? quiet : late);
    }
}

static void enqueue(void *user, const char *uuid)
{
    pco_deferred *d = user;
    item *it = malloc(sizeof *it);
    pthread_mutex_lock(&d->lock);
    if (!it) {
        d->nothing_lost = 0; /* the next start walks the folder and finds it */
    } else {
        snprintf(it->uuid, sizeof it->uuid, "%s", uuid);
        it->queued_ms = d->last_write_ms = now_ms();
        it->next = NULL;
        *d->tail = it;
        d->tail = &it->next;
        pthread_cond_signal(&d->cond);
    }
    pthread_mutex_unlock(&d->lock);
}

/* Code one stored file in place; counted, and logged when it fails. */
static void code_file(pco_deferred *d, const char *path)
{
    uint64_t before = 0, after = 0;
    char msg[512];
    pco_migrate_outcome o = pco_migrate_file(d->store, path, 0, 0, &before, &after, msg, sizeof msg);
    pthread_mutex_lock(&d->lock);
    switch (o) {
    case PCO_MIGRATED:
        d->counts.coded++;
        d->counts.bytes_before += before;
        d->counts.bytes_after += after;
        break;
    case PCO_CHANGED: d->counts.changed++; break;
    case PCO_FAILED: d->counts.failed++; break;
    default: d->counts.kept++; break;
    }
    pthread_mutex_unlock(&d->lock);
    if (o == PCO_FAILED && d->log) {
        char line[700];
        snprintf(line, sizeof line, "PCWT storage: kept as it is (not coded): %s", msg);
        d->log(d->log_user, 1, line);
    }
}

/* Log once each time the coders fall idle after work (lock held). */
static void note_idle(pco_deferred *d)
{
    if (!d->worked || d->head || d->busy || d->walk_pending) return;
    d->worked = 0;
    if (!d->log) return;
    const pco_deferred_counts *c = &d->counts;
    char line[400];
    snprintf(line, sizeof line,
             "PCWT storage: background coding idle: %llu queued files done, %llu coded (%llu -> %llu bytes), "
             "%llu kept as they are, %llu changed or removed meanwhile, %llu failed",
             c->queued, c->coded, c->bytes_before, c->bytes_after, c->kept, c->changed, c->failed);
    d->log(d->log_user, 0, line);
}

/* Take one queued file and code it (lock held on entry and exit). 0 when the queue is empty. */
static int code_queued(pco_deferred *d)
{
    if (!d->head) return 0;
    wait_quiet(d, d->head->queued_ms);
    item *it = d->head; /* another coder may have taken it meanwhile */
    if (!it || d->stop) return 0;
    d->head = it->next;
    if (!d->head) d->tail = &d->head;
    d->busy++;
    pthread_mutex_unlock(&d->lock);
    char path[4200];
    if (pco_storage_path(d->root, it->uuid, path, sizeof path) == 0) code_file(d, path);
    free(it);
    pthread_mutex_lock(&d->lock);
    d->busy--;
    d->counts.queued++;
    d->worked = 1;
    note_idle(d);
    pthread_cond_broadcast(&d->cond); /* pco_deferred_wait_idle */
    return 1;
}

/* The start's walk: each plain file of the folder, with queued files (new uploads) first. */
static int visit(void *user, const char *path, const char *name)
{
    pco_deferred *d = user;
    pthread_mutex_lock(&d->lock);
    while (!d->stop && code_queued(d)) {
    }
    wait_quiet(d, now_ms());
    int stop = d->stop;
    if (!stop) d->busy++;
    pthread_mutex_unlock(&d->lock);
    if (stop) return 1;
    if (name && name[0] == '.' && strstr(name, PCO_TEMP_MARK))
        pco_remove_stale_temp(path, 60); /* left by a killed writer; a young one may be a tool's */
    else if (name && pco_uuid_valid(name))
        code_file(d, path);
    pthread_mutex_lock(&d->lock);
    d->busy--;
    d->worked = 1;
    pthread_mutex_unlock(&d->lock);
    return 0;
}

static void *coder_main(void *arg)
{
    pco_deferred *d = arg;
    if (d->idle) {
        struct sched_param idle = {0};
        (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle); /* refused: normal priority */
#ifdef SYS_ioprio_set
        /* The idle I/O class too (IOPRIO_WHO_PROCESS 1 names this thread; class 3 << 13), where
         * the disk's scheduler has classes (BFQ); elsewhere it changes nothing. */
        (void)syscall(SYS_ioprio_set, 1, (int)syscall(SYS_gettid), 3 << 13);
#endif
    }
    pthread_mutex_lock(&d->lock);
    int walker = d->walk_pending && pthread_equal(pthread_self(), d->threads[0]);
    pthread_mutex_unlock(&d->lock);
    if (walker) {
        int stopped = pco_walk_storage(d->root, visit, d);
        pthread_mutex_lock(&d->lock);
        if (!stopped) d->walk_pending = 0;
        note_idle(d);
        pthread_cond_broadcast(&d->cond);
        pthread_mutex_unlock(&d->lock);
    }
    pthread_mutex_lock(&d->lock);
    while (!d->stop) {
        if (!code_queued(d)) pthread_cond_wait(&d->cond, &d->lock);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

static int sync_root(const char *root)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

pco_deferred *pco_deferred_start(pco_store *store, unsigned threads, int idle, pco_log_fn log, void *log_user,
                                 char *msg, size_t msg_size)
{
    pco_deferred *d = calloc(1, sizeof *d);
    if (!d) {
        pco_fail(msg, msg_size, "out of memory");
        return NULL;
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 && n < 256 ? (unsigned)n : 1;
    }
    d->store = store;
    d->idle = idle;
    d->log = log;
    d->log_user = log_user;
    d->tail = &d->head;
    d->nothing_lost = 1;
    snprintf(d->root, sizeof d->root, "%s", pco_store_config(store)->storage_dir);
    pthread_mutex_init(&d->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&d->cond, &attr);
    pthread_condattr_destroy(&attr);

    /* The marker says the last stop left nothing to code; removed (durably) before any write,
     * so that a crash from now on makes the next start walk the folder. */
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/" PCO_DEFERRED_CLEAN, d->root);
    if (unlink(marker) == 0) {
        if (sync_root(d->root) != 0) {
            pco_fail(msg, msg_size, "cannot sync %s: %s", d->root, strerror(errno));
            pthread_cond_destroy(&d->cond);
            pthread_mutex_destroy(&d->lock);
            free(d);
            return NULL;
        }
    } else {
        d->walk_pending = 1;
        d->counts.walked = 1;
    }
    d->threads = calloc(threads, sizeof *d->threads);
    if (!d->threads) {
        pco_fail(msg, msg_size, "out of memory");
        pco_deferred_stop(d);
        return NULL;
    }
    pco_store_defer(store, enqueue, d);
    pthread_mutex_lock(&d->lock); /* threads[0] is read by the threads: set before they look */
    for (unsigned i = 0; i < threads; ++i) {
        int e = pthread_create(&d->threads[i], NULL, coder_main, d);
        if (e != 0) {
            pthread_mutex_unlock(&d->lock);
            pco_fail(msg, msg_size, "cannot start a background coder: %s", strerror(e));
            d->walk_pending = 1; /* no marker: the next start walks */
            pco_deferred_stop(d);
            return NULL;
        }
        d->count++;
    }
    pthread_mutex_unlock(&d->lock);
    return d;
}

int pco_deferred_wait_idle(pco_deferred *d, unsigned timeout_ms)
{
    const int64_t deadline = now_ms() + timeout_ms;
    pthread_mutex_lock(&d->lock);
    while ((d->head || d->busy || d->walk_pending) && now_ms() < deadline) wait_until(d, deadline);
    const int idle = !d->head && !d->busy && !d->walk_pending;
    pthread_mutex_unlock(&d->lock);
    return idle;
}

void pco_deferred_get_counts(pco_deferred *d, pco_deferred_counts *counts)
{
    pthread_mutex_lock(&d->lock);
    *counts = d->counts;
    pthread_mutex_unlock(&d->lock);
}

void pco_deferred_stop(pco_deferred *d)
{
    if (!d) return;
    pco_store_defer(d->store, NULL, NULL);
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
    for (unsigned i = 0; i < d->count; ++i) pthread_join(d->threads[i], NULL);
    const int clean = !d->head && !d->walk_pending && d->nothing_lost;
    while (d->head) {
        item *next = d->head->next;
        free(d->head);
        d->head = next;
    }
    if (clean) {
        char marker[4200];
        snprintf(marker, sizeof marker, "%s/" PCO_DEFERRED_CLEAN, d->root);
        int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            (void)fsync(fd);
            close(fd);
            (void)sync_root(d->root);
        }
    }
    free(d->threads);
    pthread_cond_destroy(&d->cond);
    pthread_mutex_destroy(&d->lock);
    free(d);
}
