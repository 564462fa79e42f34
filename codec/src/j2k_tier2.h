/* j2k_tier2.h - JPEG 2000 tier-2 decoding (T.800 Annex B): the packets of a tile in its
 * progression order, their headers (tag trees, inclusion, zero bit-planes, coding passes,
 * lengths) and the code-block bytes they carry, gathered into a batch (j2k_batch.h) frame by
 * frame (j2k_tier2.c). */
#ifndef PCWT_J2K_TIER2_H
#define PCWT_J2K_TIER2_H

#include "j2k_batch.h"
#include "j2k_codestream.h"

/* A batch being filled: the arrays of pcwt_j2k_batch, owned here, with their capacities. */
/* Page-locked room for a batch's code-block bytes, which the device reads without staging: a
 * decoder pool's (j2k_decoder.c), lent to one of its group builders. */
typedef struct pcwt_j2k_pinned {
    uint8_t *p;
    size_t cap;
} pcwt_j2k_pinned;

/* A run of code-block bytes a deferring builder leaves to its caller: len bytes from src (NULL:
 * from the builder's own data at dst, where a frame of several tile-parts was copied) to offset
 * dst of the batch's data. */
typedef struct pcwt_j2k_copy {
    const uint8_t *src;
    uint64_t dst, len;
} pcwt_j2k_copy;

typedef struct pcwt_j2k_builder {
    pcwt_j2k_batch b;
    uint8_t *data;
    size_t data_cap, seg_cap, cblk_cap, tc_cap, frame_cap;
    pcwt_j2k_pinned *pinned; /* the pool's room for this builder, or NULL; kept by reset and free */
    /* defer: the code-block bytes are not copied into data but listed in copies (the caller
     * copies them once, straight into the batch it joins this one into); b.data_size and the
     * segments' offsets are as without it */
    int defer;
    pcwt_j2k_copy *copies;
    size_t copy_count, copy_cap;
} pcwt_j2k_builder;

/* Empties the batch, keeping its memory for the next one. */
void pcwt_j2k_builder_reset(pcwt_j2k_builder *bld);
void pcwt_j2k_builder_free(pcwt_j2k_builder *bld);

/* Code-blocks of the tile (every component), from the header alone. */
uint64_t pcwt_j2k_cblk_count(const pcwt_j2k_header *h);

/* Host bytes tier-2 and the CPU decode of one frame need beside the output samples, from the
 * header and the input size (what the memory limit is checked against). */
uint64_t pcwt_j2k_working_bytes(const pcwt_j2k_header *h, size_t src_size);

/* Appends one frame: parses every packet of the codestream read by pcwt_j2k_read_codestream
 * (src: the whole input) and adds its code-blocks, segments and tile-components to the batch;
 * dst and desc are where its samples go. On failure the batch is left as it was before. */
pcwt_status pcwt_j2k_tier2(pcwt_j2k_builder *bld, const pcwt_j2k_header *h, const uint8_t *src,
                           const pcwt_image_desc *desc, void *dst, char *err, size_t err_size);

#endif /* PCWT_J2K_TIER2_H */
