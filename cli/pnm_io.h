/*
 * pnm_io.h - binary Netpbm images: PGM (P5, 1 component) and PPM (P6, 3 components,
 * pixel-interleaved), maxval 1..65535. Samples are 1 byte when maxval < 256, else 2 bytes
 * big-endian (Netpbm spec). The parser treats its input as hostile: every header field is
 * checked, and the data size is checked against the file before anything is allocated.
 */
#ifndef PCWT_CLI_PNM_IO_H
#define PCWT_CLI_PNM_IO_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

/* Kind of PNM a file name asks for, from its extension (case-insensitive). */
typedef enum pnm_name_kind {
    PNM_NAME_NONE = 0, /* not a PNM name */
    PNM_NAME_PGM = 1,  /* .pgm */
    PNM_NAME_PPM = 3,  /* .ppm */
    PNM_NAME_ANY = 4   /* .pnm: PGM or PPM after the component count */
} pnm_name_kind;

pnm_name_kind pnm_name_kind_of(const char *path);

/* Does data start with a binary PGM/PPM magic ("P5" or "P6" then whitespace)? */
int pnm_has_magic(const unsigned char *data, size_t size);

/* A parsed header. desc is unsigned, pixel-interleaved, bits_allocated 8 (maxval < 256) or 16,
 * bits_stored the bit length of maxval. */
typedef struct pnm_header {
    pcwt_image_desc desc;
    uint32_t maxval;
    size_t data_offset; /* bytes of header before the samples */
} pnm_header;

/* Parse the header of the PNM file held in data and check that exactly one image of samples
 * follows it. Returns 0, or -1 with a one-line error naming path. */
int pnm_parse(const unsigned char *data, size_t size, const char *path, pnm_header *out);

/* Turn the file bytes (as parsed into hdr) into host-order samples at the start of data, in
 * place. Returns the size of the samples in bytes. */
size_t pnm_frame_from_file(const pnm_header *hdr, unsigned char *data);

/* Can an image described by desc be written to path as PGM/PPM (unsigned, and 1 component for
 * .pgm, 3 for .ppm)? Returns 0, or -1 with an error printed. Checked again by pnm_write. */
int pnm_check_writable(const char *path, const pcwt_image_desc *desc);

/* Write one frame of host-order samples (as decoded: any layout, 8 or 16 bits allocated) to
 * path as PGM or PPM, all or nothing, with maxval 2^bits_stored - 1. Refuses signed images,
 * component counts the file name does not allow, and samples above maxval (bits set above
 * bits_stored), since PNM cannot hold them. Returns 0, or -1 with an error printed. */
int pnm_write(const char *path, const pcwt_image_desc *desc, const unsigned char *samples);

#endif /* PCWT_CLI_PNM_IO_H */
