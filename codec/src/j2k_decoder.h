/* j2k_decoder.h - JPEG 2000 Part 1 lossless codestreams as the decoder's third codec
 * (j2k_decoder.c): header, limits, tier-2, tier-1, the inverse DWT and the component transforms,
 * on the CPU, or the batch on the GPU backend (pcwt_gpu_j2k_decode_batch) with the CPU taking the
 * frames the device has no memory for. What is decoded and what is refused: docs/jpeg2000.md. */
#ifndef PCWT_J2K_DECODER_H
#define PCWT_J2K_DECODER_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

struct pcwt_gpu;
struct pcwt_j2k_builder;
struct pcwt_j2k_header;

/* Tier-2's memory a decoder handle keeps between its GPU batches (j2k_decoder.c): a builder for
 * each group in flight (three on the device, one being parsed: j2k_decoder_gpu.c). */
#define PCWT_J2K_POOL_GROUPS 4
typedef struct pcwt_j2k_pool pcwt_j2k_pool;
pcwt_j2k_pool *pcwt_j2k_pool_create(void);
void pcwt_j2k_pool_free(pcwt_j2k_pool *p);
/* The pool's first batch builder; group builder k % PCWT_J2K_POOL_GROUPS. */
struct pcwt_j2k_builder *pcwt_j2k_pool_batch(pcwt_j2k_pool *p);
struct pcwt_j2k_builder *pcwt_j2k_pool_group(pcwt_j2k_pool *p, size_t k);

/* What a decode runs under: the decoder handle's limits, its GPU context (NULL: the CPU), where
 * its message goes and its tier-2 memory (NULL: allocated per call). */
typedef struct pcwt_j2k_route {
    uint64_t max_samples;
    uint64_t memory_limit; /* bytes, resolved (never 0) */
    struct pcwt_gpu *gpu;
    char *err;
    size_t err_size;
    pcwt_j2k_pool *pool;
    /* GPU: codestream bytes per group, each group's tier-2 on the host running while the device
     * decodes the group before it; 0: chosen from the batch (one group for a small one) */
    uint64_t group_bytes;
    /* GPU: tier-2 threads a group (at most 16); 0: chosen from its bytes and the cores */
    size_t tier2_threads;
} pcwt_j2k_route;

/* 1 when the bytes are a JPEG 2000 codestream or JP2 file (the decoder routes them here). */
int pcwt_j2k_is_codestream(const void *src, size_t size);

/* pcwt_read_header for JPEG 2000: the main header into info (format_version 0; desc as decoded:
 * interleaved, bits_allocated 8 up to 8 bits of precision else 16; levels of component 0;
 * group_rows x group_cols the code-block size; colour_transform the RCT; columns_first 1;
 * no planes; header_length the main header's; codestream_length where the tile-parts' lengths
 * say the codestream ends, SIZE_MAX when the data does not tell). */
pcwt_status pcwt_j2k_read_header(const uint8_t *src, size_t size, pcwt_header_info *info, char *err,
                                 size_t err_size);

/* Decodes the JPEG 2000 jobs of a batch (the others are left untouched), setting their
 * statuses; returns the first JPEG 2000 job's failure, or PCWT_OK. */
pcwt_status pcwt_j2k_decode_jobs(const pcwt_j2k_route *r, pcwt_decode_job *jobs, size_t count);

/* Tier-2 of the jobs idx[0 .. n) (JPEG 2000 codestreams that passed the decoder's checks), in
 * that order, into bld (empty), as pcwt_j2k_tier2 frame by frame would make it: runs of
 * consecutive jobs parsed on up to `threads` threads (0: chosen from the batch's bytes and the
 * cores; at most 16), then joined, in r->pool's memory when there is one. Each job's status is set
 * (PCWT_OK: its frame is in the batch); r->err holds the last failing job's message. Returns the
 * frames added. */
size_t pcwt_j2k_tier2_jobs(const pcwt_j2k_route *r, pcwt_decode_job *jobs, const size_t *idx, size_t n,
                           size_t threads, struct pcwt_j2k_builder *bld);

/* One codestream read and checked against its job (destination capacity) and r's limits: h, desc
 * and *need (the host bytes its decoding needs) filled; r->err says why not. */
pcwt_status pcwt_j2k_prepare(const pcwt_j2k_route *r, const void *src, size_t size, size_t dst_capacity,
                             struct pcwt_j2k_header *h, pcwt_image_desc *desc, uint64_t *need);
/* One codestream decoded on the CPU. */
pcwt_status pcwt_j2k_decode_one(const pcwt_j2k_route *r, const void *src, size_t size, void *dst,
                                size_t dst_capacity);
/* The JPEG 2000 jobs of a batch on r->gpu in groups (j2k_decoder_gpu.c), each job's status set;
 * the jobs the device fails or has no memory for decoded on the CPU. */
void pcwt_j2k_decode_gpu(const pcwt_j2k_route *r, pcwt_decode_job *jobs, size_t count);

/* The same for verify jobs: each JPEG 2000 codestream decoded and compared with its expected
 * samples. */
pcwt_status pcwt_j2k_verify_jobs(const pcwt_j2k_route *r, pcwt_verify_job *jobs, size_t count);

#endif /* PCWT_J2K_DECODER_H */
