/*
 * deferred.h - (internal) the deferred mode: Orthanc's write stores a DICOM file as it came
 * (written to a temporary file, synced, renamed: Orthanc's own safety) and is acknowledged at
 * once; background coders then replace each such file by its container exactly as
 * pcwt-orthanc-compress does (migrate.h: coded, verified, synced, exchanged atomically only if
 * the file is still the one read, so that a file Orthanc removed meanwhile is not brought back).
 * A read finds the plain file or the container at every moment, both read correctly.
 *
 * The queue of files to code lives in memory. A start after a stop that left nothing to do (a
 * marker file in the storage folder, removed at start) needs no more; any other start (after a
 * crash, a kill, a stop with files still queued, or the first start on a folder) first walks the
 * folder and codes every plain file the plugin would code, so a crash loses no file's coding.
 * The coders run at idle priority (SCHED_IDLE) by default: they take the CPU only when nothing
 * else wants it (on a machine kept busy by other work they wait for it),
 * and start a file only after writes paused for a moment (or it waited some seconds).
 */
#ifndef PCWT_ORTHANC_DEFERRED_H
#define PCWT_ORTHANC_DEFERRED_H

#include "store.h"

/* The marker of a clean stop, in the storage folder. */
#define PCO_DEFERRED_CLEAN ".pcwt-deferred-clean"

typedef struct pco_deferred pco_deferred;

/* A line for the log, from any coder thread: a file that could not be coded (warning 1), and
 * each time the coders fall idle after work (warning 0): "PCWT storage: background coding idle:
 * N queued files done, ..." with the counts. */
typedef void (*pco_log_fn)(void *user, int warning, const char *line);

/* Start threads coders (0: one per CPU) for store and attach them to its writes
 * (pco_store_defer); idle 1: at idle priority (SCHED_IDLE, the idle I/O class), 0: at the
 * caller's. NULL with msg when the threads cannot be started. */
pco_deferred *pco_deferred_start(pco_store *store, unsigned threads, int idle, pco_log_fn log, void *log_user,
                                 char *msg, size_t msg_size);

/* Wait until nothing is queued or being coded and the start's walk is done: 1, or 0 when
 * timeout_ms passed first. */
int pco_deferred_wait_idle(pco_deferred *d, unsigned timeout_ms);

typedef struct pco_deferred_counts {
    unsigned long long queued;                       /* files taken from the queue */
    unsigned long long coded, kept, changed, failed; /* files, by outcome */
    unsigned long long bytes_before, bytes_after;    /* of the coded files */
    int walked;                                      /* 1: the start walked the folder */
} pco_deferred_counts;
void pco_deferred_get_counts(pco_deferred *d, pco_deferred_counts *counts);

/* Detach from the store, let each coder finish its file, join them; the marker is written when
 * nothing was left to do. Call after the store's last write. */
void pco_deferred_stop(pco_deferred *d);

#endif
