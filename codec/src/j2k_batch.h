/* j2k_batch.h - a batch of JPEG 2000 Part 1 frames ready for tier-1 decoding, the inverse 5/3
 * DWT and the component transforms: what the tier-2 parser (j2k_tier2.c, CPU) produces and what
 * both tier-1 decoders (j2k_t1.c, cuda/j2k_t1_gpu.cu) and both inverse transforms consume. One
 * definition for both backends, so that they decode the same code-blocks into the same places.
 *
 * Layout. Every frame's tile-components own a range of the batch's int32 coefficient buffer, one
 * row of `width` coefficients after another, with the sub-bands in place as the forward transform
 * leaves them (Mallat layout): the lowest band at (0, 0); for each level d = levels .. 1 the bands
 * HL at (lw, 0), LH at (0, lh) and HH at (lw, lh), where lw x lh is the size of the resolution
 * below level d. Each code-block writes its final reversible coefficients (two's complement,
 * already divided as JPEG 2000's reconstruction of a reversible path does) at out_offset with row
 * pitch out_stride. The inverse DWT then works in place, resolution by resolution. */
#ifndef PCWT_J2K_BATCH_H
#define PCWT_J2K_BATCH_H

#include "hostdev.h"
#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

enum { PCWT_J2K_LL = 0, PCWT_J2K_HL = 1, PCWT_J2K_LH = 2, PCWT_J2K_HH = 3 };

/* Code-block style bits (SPcod/SPcoc, ITU-T T.800 Table A.19). */
enum {
    PCWT_J2K_STYLE_BYPASS = 0x01,  /* selective arithmetic coding bypass */
    PCWT_J2K_STYLE_RESET = 0x02,   /* reset context probabilities on each pass */
    PCWT_J2K_STYLE_TERMALL = 0x04, /* termination on each coding pass */
    PCWT_J2K_STYLE_VSC = 0x08,     /* vertically causal context */
    PCWT_J2K_STYLE_PTERM = 0x10,   /* predictable termination */
    PCWT_J2K_STYLE_SEGSYM = 0x20,  /* segmentation symbols */
    PCWT_J2K_STYLE_HT = 0x40       /* HTJ2K block coder (Part 15) */
};

/* One codeword segment of a code-block: its bytes in the batch's data buffer and the coding
 * passes it holds. Without TERMALL or BYPASS a code-block has one segment (its contributions
 * from every layer, concatenated). */
typedef struct pcwt_j2k_seg {
    uint64_t offset;  /* into pcwt_j2k_batch.data */
    uint32_t length;  /* bytes */
    uint32_t passes;  /* coding passes in this segment */
} pcwt_j2k_seg;

typedef struct pcwt_j2k_cblk {
    uint64_t out_offset;  /* index of its top-left coefficient in the batch's coefficient buffer */
    uint32_t out_stride;  /* coefficients per row there (its tile-component's width) */
    uint32_t seg_first;   /* its first segment in pcwt_j2k_batch.segs */
    uint32_t seg_count;   /* 0: not included in any layer, every coefficient is 0 */
    uint16_t width;       /* samples, 1..1024, width * height <= 4096 */
    uint16_t height;
    uint8_t orientation;  /* PCWT_J2K_LL .. PCWT_J2K_HH */
    uint8_t mb;           /* the band's magnitude bit-planes: guard bits + exponent - 1 (E.1) */
    uint8_t zero_msbs;    /* missing most significant bit-planes, from the packet headers */
    uint8_t style;        /* PCWT_J2K_STYLE_* bits */
    uint32_t passes;      /* coding passes over all its segments */
} pcwt_j2k_cblk;

/* One tile-component: its coefficients and how to invert its transform. */
typedef struct pcwt_j2k_tilecomp {
    uint64_t coef_offset; /* first coefficient in the batch's coefficient buffer */
    uint32_t width;       /* the tile-component's size (the image's, with one tile at 0,0) */
    uint32_t height;
    uint32_t levels;      /* decomposition levels (0..32; the Mallat layout above) */
} pcwt_j2k_tilecomp;

/* One frame: its components and where its samples go. */
typedef struct pcwt_j2k_frame {
    uint32_t tc_first;    /* its first tile-component in pcwt_j2k_batch.tcs (one per component) */
    uint32_t components;  /* 1 or 3 */
    uint32_t rct;         /* 1: the inverse reversible colour transform applies (COD MCT, 3 comps) */
    uint32_t precision;   /* the codestream's bit depth (SIZ Ssiz + 1), 1..16 */
    uint32_t is_signed;   /* SIZ's sign bit: 0 means a DC level shift of 2^(precision-1) */
    pcwt_image_desc desc; /* the output samples' layout (width/height/components as above) */
    void *dst;            /* the caller's buffer, pcwt_image_size(&desc) bytes */
    uint32_t cblk_first;  /* its code-blocks in pcwt_j2k_batch.cblks */
    uint32_t cblk_count;
} pcwt_j2k_frame;

typedef struct pcwt_j2k_batch {
    const uint8_t *data;  /* every code-block's codeword bytes (copied out of the packets) */
    size_t data_size;
    pcwt_j2k_seg *segs;
    size_t seg_count;
    pcwt_j2k_cblk *cblks;
    size_t cblk_count;
    pcwt_j2k_tilecomp *tcs;
    size_t tc_count;
    pcwt_j2k_frame *frames;
    size_t frame_count;
    uint64_t coef_count;  /* int32 coefficients the batch needs */
} pcwt_j2k_batch;

#endif /* PCWT_J2K_BATCH_H */
