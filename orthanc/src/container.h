/*
 * container.h - (internal) the stored form of a file whose pixel data PCWT codes: the original's
 * bytes outside the Pixel Data value verbatim, the value as PCWT codestreams (one per frame), and
 * CRC-32s of the whole original and of its prefix, so that a damaged stored file is an error on
 * read, never other bytes. A "raw" container holds a file verbatim behind the same header: the
 * plugin uses it for plain files that happen to begin with the container's magic, so that what
 * the magic announces is always a container.
 *
 *   offset size
 *   0      8    magic "PCWTORC1"
 *   8      4    header length (72)
 *   12     4    kind: 1 coded DICOM, 2 raw
 *   16     8    original size
 *   24     4    CRC-32 of the whole original
 *   28     4    frames (0 for raw)
 *   32     8    prefix length: the original's bytes before the Pixel Data value
 *   40     8    Pixel Data value length (frames * frame bytes, + 1 pad byte when odd)
 *   48     8    frame bytes
 *   56     4    CRC-32 of the prefix
 *   60     8    deflated length of the bytes outside the frames (0: stored as they are)
 *   68     4    CRC-32 of bytes 0..67
 * then the prefix, per frame an 8-byte codestream length and the codestream, the pad byte (if
 * any), the original's bytes after the value (to the end). When the bytes outside the frames
 * (the prefix, then the pad byte and the rest) deflate smaller, they come deflated (zlib) right
 * after the header instead, and the frames end the container. Raw: the original after the
 * header. All numbers little endian.
 */
#ifndef PCWT_ORTHANC_CONTAINER_H
#define PCWT_ORTHANC_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "dicom_scan.h"
#include "pcwt.h"

#define PCO_MAGIC "PCWTORC1"
#define PCO_MAGIC_LENGTH 8
#define PCO_HEADER_LENGTH 72

/* 1 when data begins with the container's magic (a stored file to decode, not a plain one). */
int pco_is_container(const uint8_t *data, size_t size);

/* Code the file described by scan with enc, assemble the container (malloc'd, *out) and verify it:
 * decoded with dec it must give back every byte of the original. 0 on success; -1 with msg. */
int pco_container_build(const uint8_t *orig, size_t size, const pco_scan *scan, pcwt_encoder *enc,
                        pcwt_decoder *dec, uint8_t **out, size_t *out_size, char *msg, size_t msg_size);

/* Encode every frame of jobs and check that each codestream decodes to its samples (with
 * pcwt_encode_batch and pcwt_verify_batch, directly or through a batcher). 0, or -1 with msg. */
typedef int (*pco_code_fn)(void *user, pcwt_frame_job *jobs, size_t count, char *msg, size_t msg_size);

/* pco_container_build with the frames coded and checked by code(user, ...); the container is then
 * read back as a read reads it, each frame being the codestream code() checked. */
int pco_container_build_with(const uint8_t *orig, size_t size, const pco_scan *scan, pco_code_fn code,
                             void *user, uint8_t **out, size_t *out_size, char *msg, size_t msg_size);

/* The raw container of a file (malloc'd). 0 on success; -1 with msg. */
int pco_container_raw(const uint8_t *orig, size_t size, uint8_t **out, size_t *out_size, char *msg,
                      size_t msg_size);

/* The original size a container declares, after checking its header. 0 or -1 with msg. */
int pco_container_original_size(const uint8_t *c, size_t c_size, uint64_t *size, char *msg, size_t msg_size);

/* The original into dst (dst_size must be the original size), checked against its CRC-32.
 * 0 or -1 with msg (damaged or truncated container, decoder failure). */
int pco_container_decode(const uint8_t *c, size_t c_size, pcwt_decoder *dec, uint8_t *dst,
                         uint64_t dst_size, char *msg, size_t msg_size);

/* length bytes of the original from start into dst. A range inside the prefix is copied from it
 * (its CRC-32 checked), without decoding; any other range decodes the whole original first. */
int pco_container_read_range(const uint8_t *c, size_t c_size, pcwt_decoder *dec, uint64_t start,
                             uint8_t *dst, uint64_t length, char *msg, size_t msg_size);

#endif
