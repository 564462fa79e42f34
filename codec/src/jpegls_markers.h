/* jpegls_markers.h - the marker segments of a JPEG-LS codestream (T.87, annex C; T.81, B.1):
 * SOI, SOF55, LSE (preset coding parameters), DRI, SOS, RSTm and EOI.
 *
 * Each writer appends at dst[*pos] and advances *pos; it returns 0 and writes nothing when the
 * segment does not fit in cap bytes. */
#ifndef PCWT_JPEGLS_MARKERS_H
#define PCWT_JPEGLS_MARKERS_H

#include <stddef.h>
#include <stdint.h>

#include "jpegls_context.h"

#define JLS_MARKER_SOI 0xD8u
#define JLS_MARKER_EOI 0xD9u
#define JLS_MARKER_SOS 0xDAu
#define JLS_MARKER_DRI 0xDDu
#define JLS_MARKER_RST0 0xD0u
#define JLS_MARKER_SOF55 0xF7u /* start of frame, JPEG-LS */
#define JLS_MARKER_LSE 0xF8u   /* JPEG-LS preset parameters */

/* Sizes of the segments, marker included. */
#define JLS_SOI_SIZE 2u
#define JLS_EOI_SIZE 2u
#define JLS_RST_SIZE 2u
#define JLS_LSE_PRESET_SIZE 15u
#define JLS_DRI_SIZE 6u
static inline size_t jls_sof_size(uint32_t components) { return 10u + 3u * components; }
static inline size_t jls_sos_size(uint32_t components) { return 8u + 2u * components; }

int jls_write_marker(uint8_t *dst, size_t cap, size_t *pos, uint32_t marker);

/* SOF55: precision, lines, columns, components (identifiers 1..n, sampling 1x1, Tq 0). */
int jls_write_sof(uint8_t *dst, size_t cap, size_t *pos, uint32_t bits, uint32_t width,
                  uint32_t height, uint32_t components);

/* LSE id 1, preset coding parameters MAXVAL, T1, T2, T3, RESET. */
int jls_write_lse_preset(uint8_t *dst, size_t cap, size_t *pos, const jls_params *p);

/* DRI with a 2-byte restart interval (in lines). */
int jls_write_dri(uint8_t *dst, size_t cap, size_t *pos, uint32_t interval);

/* SOS for components first_id .. first_id + count - 1, NEAR 0, the interleave mode, no point
 * transform, no mapping table. */
int jls_write_sos(uint8_t *dst, size_t cap, size_t *pos, uint32_t first_id, uint32_t count,
                  uint32_t interleave);

/* Everything before the first SOS: SOI, SOF55, an LSE preset-parameters segment for P > 12 (CharLS
 * 2.4.1 writes one by default then, with the default values) and DRI when restart is not 0. Shared
 * by the CPU and GPU encoders so that their headers cannot differ. */
int jls_write_frame_header(uint8_t *dst, size_t cap, size_t *pos, uint32_t bits, uint32_t width,
                           uint32_t height, uint32_t components, uint32_t restart);

#endif /* PCWT_JPEGLS_MARKERS_H */
