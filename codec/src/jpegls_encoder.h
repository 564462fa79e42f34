/* jpegls_encoder.h - JPEG-LS (ITU-T T.87) lossless encoder behind pcwt_encode when
 * params->codec is PCWT_CODEC_JPEGLS (jpegls_encoder.c), and its worst-case output size. */
#ifndef PCWT_JPEGLS_ENCODER_H
#define PCWT_JPEGLS_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A destination size that always suffices for pcwt_jpegls_encode_frame on desc with the given
 * interleave mode and restart interval (0 if desc is invalid or the size overflows size_t).
 *
 * Why it suffices: every sample costs at most LIMIT bits, LIMIT = 2 * (P + max(8, P)) for P =
 * bits_stored (32 bits for P <= 8, 4P for P > 8): a regular-mode codeword is at most LIMIT bits;
 * a run costs at most one bit per sample it covers, and the 0 bit, the J[RUNindex] remainder bits
 * and the interruption codeword (at most LIMIT - J[RUNindex] - 1 bits) together at most LIMIT
 * bits per interruption sample. Bit stuffing leaves at least 7 data bits in every byte; each entropy-
 * coded segment adds at most a padding byte and a 0x00 after a final 0xFF, each restart interval an
 * RSTm marker, and the marker segments at most 2 + 19 + 15 + 6 + 3 * 10 + 2 = 74 bytes. So:
 *   bound = 74 + ceil(LIMIT * width * height * components / 7) + 4 * segments,
 * segments = scans * ceil(height / restart interval). */
/* samples match d (validated); writes a complete JPEG-LS codestream (SOI .. EOI). lut_cache is
 * the calling handle's quantisation table (jpegls_context.h), reused across frames. */
struct jls_qlut_cache;
pcwt_status pcwt_jpegls_encode_frame(const pcwt_encode_params *params, const pcwt_image_desc *d,
                                     const void *samples, void *dst, size_t cap, size_t *written,
                                     struct jls_qlut_cache *lut_cache, char *err, size_t err_size);

size_t pcwt_jpegls_encode_bound(const pcwt_image_desc *desc, uint32_t interleave,
                                uint32_t restart_interval);

#ifdef __cplusplus
}
#endif

#endif /* PCWT_JPEGLS_ENCODER_H */
