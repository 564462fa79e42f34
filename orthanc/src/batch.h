/*
 * batch.h - (internal) the frames of concurrent writes gathered into one coding call. Each
 * Orthanc write runs on its own thread (HTTP and DICOM threads); on a GPU one call of many frames
 * costs little more than one of few, so a write hands its frames to the batcher, which waits a
 * short window for other writes' frames and then encodes all of them with one
 * pcwt_encode_batch and checks them with one pcwt_verify_batch (every frame decoded and
 * compared with its samples) on one encoder and decoder. The first thread to arrive while no
 * batch is being gathered leads: it gathers, codes and hands every thread its results; the
 * others wait. Each write still gets its own statuses, so a frame that fails fails only its file.
 */
#ifndef PCWT_ORTHANC_BATCH_H
#define PCWT_ORTHANC_BATCH_H

#include <stddef.h>

#include "pcwt.h"

typedef struct pco_batcher pco_batcher;

/* A batcher coding with enc and checking with dec (it owns neither; both must outlive it).
 * window_us: how long the leader gathers; max_frames: a batch this large is coded at once. */
pco_batcher *pco_batcher_create(pcwt_encoder *enc, pcwt_decoder *dec, unsigned window_us, size_t max_frames);
void pco_batcher_destroy(pco_batcher *b);

/* Encode jobs[0..count) (each job's dst and dst_capacity set, as for pcwt_encode_batch) together
 * with the frames of concurrent calls, and check that each codestream decodes to its samples.
 * 0 when every frame of these jobs was coded and checked; -1 with msg otherwise. */
int pco_batcher_code(pco_batcher *b, pcwt_frame_job *jobs, size_t count, char *msg, size_t msg_size);

/* Batches coded and frames coded so far (for tests and the log). */
void pco_batcher_counts(pco_batcher *b, unsigned long long *batches, unsigned long long *frames);

#endif
