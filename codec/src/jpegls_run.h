/* jpegls_run.h - JPEG-LS run mode (T.87, A.7): run-length coding with the RUNindex state and the
 * run-interruption sample with its two contexts (RItype 0 and 1). */
#ifndef PCWT_JPEGLS_RUN_H
#define PCWT_JPEGLS_RUN_H

#include <stdint.h>

#include "jpegls_bitwriter.h"
#include "jpegls_context.h"

/* J[RUNindex] (A.2.1, step 3): a run of 2^J[RUNindex] samples is coded with a single 1 bit. */
extern const uint8_t jls_run_j[32];

/* Codes a run of len samples (A.7.1.2). eol: the run reached the end of the line, no
 * interruption sample follows. Updates *run_index (0..31). */
void jls_run_length(jls_bitwriter *bw, int32_t *run_index, uint32_t len, int eol);

/* Codes the interruption sample x of a single-component line (A.7.2) with neighbours Ra and Rb;
 * run_index is RUNindex after the run was coded (it sets glimit = LIMIT - J[RUNindex] - 1). */
void jls_run_interruption(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                          int32_t run_index, int32_t x, int32_t ra, int32_t rb);

/* Run mode at column i of a single-component line: the run of samples equal to Ra = cur[i - 1],
 * then the interruption sample unless the run reaches the line end. cur and prev point at
 * column 0 (cur[-1] is valid). Returns the samples consumed (the run plus the interruption). */
int32_t jls_run_mode(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw, const int32_t *prev,
                     const int32_t *cur, int32_t i, int32_t width, int32_t *run_index);

/* The same for a sample-interleaved line of 3 components (one run over whole pixels, as CharLS
 * 2.4.1 codes it: each component of the interruption pixel is coded with the RItype 0 context,
 * its error sign-corrected by sign(Rb - Ra)). prev[c] and cur[c] are component c's lines. */
int32_t jls_run_mode_triplet(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                             const int32_t *const prev[3], const int32_t *const cur[3], int32_t i,
                             int32_t width, int32_t *run_index);

#endif /* PCWT_JPEGLS_RUN_H */
