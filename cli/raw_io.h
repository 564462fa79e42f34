/*
 * raw_io.h - raw sample files: one frame of little-endian samples (1 byte per sample for 8 bits
 * allocated, 2 for 16), row by row, components interleaved or planar as the descriptor says.
 * Also the byte-order conversions shared with the PNM reader and writer.
 */
#ifndef PCWT_CLI_RAW_IO_H
#define PCWT_CLI_RAW_IO_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

/* Bytes of one frame described by desc (width * height * components * bytes per sample), or 0
 * if it does not fit in 64 bits or bits_allocated is not 8 or 16. */
uint64_t cli_frame_bytes(const pcwt_image_desc *desc);

/* 16-bit samples, converted in place between file byte order and host order. */
void cli_u16_le_to_host(unsigned char *data, size_t samples);
void cli_u16_host_to_le(unsigned char *data, size_t samples);
void cli_u16_be_to_host(unsigned char *data, size_t samples);
void cli_u16_host_to_be(unsigned char *data, size_t samples);

/* Turn the bytes of a raw file (read from path) into host-order samples, in place. Fails with
 * an error printed when the file size is not exactly one frame of desc. */
int raw_frame_from_file(const pcwt_image_desc *desc, unsigned char *data, size_t size,
                        const char *path);

/* Turn host-order samples of one frame into the raw file byte order, in place. */
void raw_frame_to_file(const pcwt_image_desc *desc, unsigned char *data, size_t size);

#endif /* PCWT_CLI_RAW_IO_H */
