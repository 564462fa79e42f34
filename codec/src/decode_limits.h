/* decode_limits.h - what protects the decoders, from the header alone and before anything is
 * allocated: the header's agreement with the codestream and destination, the samples limit, and
 * the working memory of both backends (decode_limits.c). */
#ifndef PCWT_DECODE_LIMITS_H
#define PCWT_DECODE_LIMITS_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

/* What a parsed header must satisfy (limit, codestream length, destination size); shared by the
 * CPU and GPU decoders. */
pcwt_status pcwt_decode_check(const pcwt_header_info *info, size_t src_size, size_t dst_capacity,
                              uint64_t max_samples, char *err, size_t err_size);
/* The decoder's host working memory for one codestream, decoded samples excluded: the CPU path's
 * (gpu 0), plus the GPU path's pinned staging (gpu 1; the GPU falls back to the CPU while its
 * staging is held). */
uint64_t pcwt_decode_working_bytes(const pcwt_header_info *info, int gpu);
uint64_t pcwt_decode_gpu_staging_bytes(const pcwt_header_info *info);
/* need > limit -> PCWT_ERR_LIMIT_EXCEEDED with "what needs N MiB, limit M MiB". */
pcwt_status pcwt_memory_check(uint64_t need, uint64_t limit, const char *what, char *err,
                              size_t err_size);

#endif /* PCWT_DECODE_LIMITS_H */
