/*
 * store.h - (internal) the storage area itself, without Orthanc: what a file is stored as (coded,
 * raw or as it came), writes, reads of the whole or a range, removal. One pco_store per plugin or
 * tool; its calls may run on many threads at once (each takes coders from the store's pool).
 */
#ifndef PCWT_ORTHANC_STORE_H
#define PCWT_ORTHANC_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef struct pco_store pco_store;

typedef enum pco_result {
    PCO_OK = 0,
    PCO_ERR_MISSING,  /* no such stored file */
    PCO_ERR_IO,       /* the file system refused */
    PCO_ERR_DAMAGED,  /* a stored file that does not give its original back (checksum) */
    PCO_ERR_REFUSED,  /* a plain file while ReadPlainFiles is off, a bad uuid or range */
    PCO_ERR_MEMORY
} pco_result;

pco_store *pco_store_create(const pco_config *cfg, char *msg, size_t msg_size);
void pco_store_destroy(pco_store *store);
const pco_config *pco_store_config(const pco_store *store);

/* Frames of concurrent writes coded together (batch.h): the batcher's window when BatchWindowMs
 * is left to the default and the encoder codes on the GPU, and the most frames of a batch. */
#define PCO_DEFAULT_BATCH_WINDOW_US 2000
#define PCO_BATCH_MAX_FRAMES 64

/* 1 when the store batches concurrent writes; the batches and frames coded so far. */
int pco_store_batching(const pco_store *store);
void pco_store_batch_counts(pco_store *store, unsigned long long *batches, unsigned long long *frames);

/* How a file is to be stored. *out is NULL when data is stored as it came; otherwise a malloc'd
 * container (coded and verified, or raw). *coded is 1 for a coded one. note (may be "") says why
 * DICOM data was not coded (e.g. a container that would not be smaller than the file). */
pco_result pco_store_prepare(pco_store *store, const uint8_t *data, size_t size, int is_dicom,
                             uint8_t **out, size_t *out_size, int *coded, char *note, size_t note_size);

/* The deferred mode (deferred.h): from this call on, pco_store_write stores DICOM attachments as
 * they came and then hands their uuid to fn(user, uuid), which has them coded later. NULL: code
 * them in the write again. Called before the store's first write and after its last. */
typedef void (*pco_stored_fn)(void *user, const char *uuid);
void pco_store_defer(pco_store *store, pco_stored_fn fn, void *user);

/* Store an attachment under its uuid (atomically). */
pco_result pco_store_write(pco_store *store, const char *uuid, const void *data, size_t size,
                           int is_dicom, char *msg, size_t msg_size);

/* The original bytes of an attachment, into memory from alloc(user, size) (NULL: out of memory). */
typedef void *(*pco_alloc_fn)(void *user, uint64_t size);
pco_result pco_store_read(pco_store *store, const char *uuid, pco_alloc_fn alloc, void *user,
                          char *msg, size_t msg_size);

/* length bytes of the original from start. */
pco_result pco_store_read_range(pco_store *store, const char *uuid, uint64_t start, void *dst,
                                uint64_t length, char *msg, size_t msg_size);

/* The original of stored bytes (a container or a plain file's), as pco_store_read. */
pco_result pco_store_decode(pco_store *store, const uint8_t *stored, size_t size, pco_alloc_fn alloc,
                            void *user, char *msg, size_t msg_size);

pco_result pco_store_remove(pco_store *store, const char *uuid, char *msg, size_t msg_size);

#endif
