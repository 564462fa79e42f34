/* internal.h - types shared by the stages of the CPU codec (not part of the public API). */
#ifndef PCWT_INTERNAL_H
#define PCWT_INTERNAL_H

#include "hostdev.h"
#include "pcwt.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Largest image side the format accepts (DICOM Rows/Columns are 16-bit). */
#define PCWT_MAX_SIDE 65535u
/* Largest quantisation level the format accepts: magnitudes stay below 2^31. */
#define PCWT_MAX_QMAX 30
/* Bands of a pyramid: LL plus HL, LH, HH per level. */
#define PCWT_MAX_BANDS (1 + 3 * PCWT_MAX_LEVELS)

/* Sizes of one decomposition level (Ao 2014, Fig. 3.2): the level's input (even), each of its
 * four bands (even, zero padded lazily), and the MQD bands (half the band). */
typedef struct pcwt_level_size {
    uint32_t level_r, level_c;
    uint32_t band_r, band_c;
    uint32_t mqd_r, mqd_c;
} pcwt_level_size;

typedef struct pcwt_plan {
    uint32_t rows, cols; /* image */
    uint32_t levels;
    pcwt_level_size lv[PCWT_MAX_LEVELS + 1]; /* lv[l-1] for level l = 1..levels */
    uint32_t ll_r, ll_c;                      /* top-level LL band (padded image if levels == 0) */
} pcwt_plan;

static inline uint32_t pcwt_even_up(uint32_t n) { return n + (n & 1u); }

/* plan.c */
uint32_t pcwt_plan_max_levels(uint32_t rows, uint32_t cols, uint32_t min_ll);
void pcwt_plan_make(pcwt_plan *plan, uint32_t rows, uint32_t cols, uint32_t levels);

/* A band of coefficients with its MQD band. Orientation index o: 0 = HL, 1 = LH, 2 = HH. */
typedef struct pcwt_band {
    int32_t *coef; /* rows x cols, dense */
    int8_t *mqd;   /* mrows x mcols, dense */
    uint32_t rows, cols, mrows, mcols;
    uint32_t level; /* 1 = finest; the LL band has the top level (0 when no transform) */
} pcwt_band;

/* The whole decomposition of one plane, bands indexed in coding order:
 * 0 = LL, 1..3 = HL, LH, HH of the top level, then HL, LH, HH of each finer level. */
typedef struct pcwt_pyramid {
    pcwt_plan plan;
    uint32_t band_count;
    pcwt_band band[PCWT_MAX_BANDS];
    int32_t *image;                      /* even_up(rows) x even_up(cols), zero padded */
    int32_t *ll[PCWT_MAX_LEVELS + 1];    /* ll[l-1]: LL output of level l (ll[levels-1] is coded) */
    int32_t *tmp;                        /* transform scratch */
    void *mem;
    size_t mem_size;
} pcwt_pyramid;

static inline uint32_t pcwt_band_index(uint32_t levels, uint32_t level, uint32_t orient)
{
    return 1u + 3u * (levels - level) + orient;
}

/* pyramid.c-like helpers live in plan.c: (re)allocate for a plan, reusing memory. */
pcwt_status pcwt_pyramid_prepare(pcwt_pyramid *p, const pcwt_plan *plan);
void pcwt_pyramid_free(pcwt_pyramid *p);
/* The bytes pcwt_pyramid_prepare allocates for a plan. */
uint64_t pcwt_pyramid_bytes(const pcwt_plan *plan);
/* For decoding only: the inverse transform's scratch is a few rows, not a level's halves (a
 * pyramid prepared so cannot run the forward transform). */
pcwt_status pcwt_pyramid_prepare_decode(pcwt_pyramid *p, const pcwt_plan *plan);
uint64_t pcwt_pyramid_decode_bytes(const pcwt_plan *plan);

/* dwt53.c: reversible (5,3) lifting with whole-sample symmetric extension. */
void pcwt_dwt53_forward_1d(const int32_t *x, uint32_t n, int32_t *low, int32_t *high);
void pcwt_dwt53_inverse_1d(const int32_t *low, const int32_t *high, uint32_t n, int32_t *x);
/* columns_first: each level lifts its columns before its rows (header flag bit 3). */
void pcwt_dwt53_forward(pcwt_pyramid *p, int columns_first);
void pcwt_dwt53_inverse(pcwt_pyramid *p, int columns_first);

/* mqd.c: MQD bands (backward, finest level first) and Qmax. */
static inline PCWT_HD int pcwt_ql_of_magnitude(uint32_t a)
{
    return a ? PCWT_LOG2(a) : -1;
}
static inline PCWT_HD uint32_t pcwt_magnitude(int32_t c)
{
    return c < 0 ? 0u - (uint32_t)c : (uint32_t)c;
}
void pcwt_mqd_band(const int32_t *coef, uint32_t cols, int8_t *mqd, uint32_t mrows,
                   uint32_t mcols, const int8_t *child, uint32_t crows, uint32_t ccols);
int pcwt_mqd_compute(pcwt_pyramid *p); /* returns Qmax (-1 for an all-zero plane) */

/* Bands of the top level (their reference is Qmax): LL, HL, LH, HH, or LL alone without a
 * transform. */
static inline int pcwt_band_is_top(const pcwt_pyramid *p, uint32_t b)
{
    return p->plan.levels ? b < 4 : b == 0;
}

/* group_coder.c: element and group coding of one plane (baseline profile). */
uint64_t pcwt_group_count(const pcwt_pyramid *p, uint32_t gr, uint32_t gc);
uint64_t pcwt_payload_size(const pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc);
uint64_t pcwt_payload_max_size(const pcwt_plan *plan, int qmax, uint32_t gr, uint32_t gc);
void pcwt_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc, uint8_t *dst);
pcwt_status pcwt_payload_decode(pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc,
                                const uint8_t *src, size_t size, char *err, size_t err_size);
/* For the decoders of both profiles, once band b is decoded: when it is the last band of the top
 * level, Qmax must be the largest top-level MQD, as the encoder computes it. */
pcwt_status pcwt_check_top_qmax(const pcwt_pyramid *p, uint32_t b, int qmax, char *err,
                                size_t err_size);
/* For the decoders of both profiles, once band bi + 3 (its children) is decoded: each MQD of band
 * bi is the largest level of its children's MQDs and its own coefficients (FORMAT.md Sec. 4.1). */
pcwt_status pcwt_check_mqd_parents(const pcwt_pyramid *p, uint32_t bi, char *err, size_t err_size);

/* group_coder_ec.c: element and group coding of one plane, entropy profile (profile 1). A
 * plane's payload is never larger than pcwt_payload_size() of the baseline. */
pcwt_status pcwt_ec_payload_encode(const pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc,
                                   int low, uint8_t *dst, size_t cap, size_t *written);
pcwt_status pcwt_ec_payload_decode(pcwt_pyramid *p, int qmax, uint32_t gr, uint32_t gc, int low,
                                   const uint8_t *src, size_t size, char *err, size_t err_size);
/* Whether a plane's low magnitude bits are worth modelling (plane option bit 0, FORMAT.md
 * Sec. 5.3), from its transformed pyramid. */
int pcwt_ec_low_bits_wanted(const pcwt_pyramid *p);

/* container.h / container.c: the codestream header (docs/FORMAT.md). */
#include "container.h"

/* decoder.c: what a parsed header must satisfy before anything is allocated (limit, codestream
 * length, destination size); shared by the CPU and GPU decoders. */
pcwt_status pcwt_decode_check(const pcwt_header_info *info, size_t src_size, size_t dst_capacity,
                              uint64_t max_samples, char *err, size_t err_size);
/* limits.c: the decoder's host working memory for one codestream, decoded samples excluded:
 * the CPU path's (gpu 0), plus the GPU path's pinned staging (gpu 1; the GPU falls back to the
 * CPU while its staging is held). */
uint64_t pcwt_decode_working_bytes(const pcwt_header_info *info, int gpu);
uint64_t pcwt_decode_gpu_staging_bytes(const pcwt_header_info *info);
/* limits.c: need > limit -> PCWT_ERR_LIMIT_EXCEEDED with "what needs N MiB, limit M MiB". */
pcwt_status pcwt_memory_check(uint64_t need, uint64_t limit, const char *what, char *err,
                              size_t err_size);
/* decoder.c: a verify job's decoded samples (size bytes) against its expected ones: PCWT_OK, or
 * PCWT_ERR_MISMATCH with first_difference set; shared by the CPU and GPU verifiers. */
pcwt_status pcwt_verify_compare(pcwt_verify_job *job, const uint8_t *decoded, size_t size, char *err,
                                size_t err_size);

/* planes.c: samples <-> int32 planes. kind 0: the value in bits_stored bits (sign-extended when
 * signed); kind 1: the bits above bits_stored that differ from the canonical extension. */
pcwt_status pcwt_desc_check(const pcwt_image_desc *desc, char *err, size_t err_size);
int pcwt_plane_has_high_bits(const pcwt_image_desc *d, const void *samples, uint32_t comp);
/* The value plane of component comp under the reversible colour transform (rct.h). */
void pcwt_plane_extract_rct(const pcwt_image_desc *d, const void *samples, uint32_t comp,
                            int32_t *dst, uint32_t stride);
/* Whether the encoder applies the colour transform to a frame (params resolved, 3 components). */
int pcwt_rct_wanted(const pcwt_encode_params *p, const pcwt_image_desc *d);
/* The group size of params whose group_rows x group_cols may be 0x0 (the profile's size). */
void pcwt_group_size_wanted(const pcwt_encode_params *p, uint32_t *rows, uint32_t *cols);
/* Whether the encoder lifts columns first (header flag bit 3; params resolved). */
int pcwt_columns_first_wanted(const pcwt_encode_params *p);
void pcwt_plane_extract(const pcwt_image_desc *d, const void *samples, uint32_t comp,
                        uint32_t kind, int32_t *dst, uint32_t stride);
/* Stores a decoded plane; returns 0 when a value is out of the declared range. */
int pcwt_plane_store(const pcwt_image_desc *d, void *samples, uint32_t comp, uint32_t kind,
                     const int32_t *src, uint32_t stride);

/* jpegls_encoder.c: the JPEG-LS codec behind pcwt_encode when params->codec is JPEGLS.
 * samples match d (validated); writes a complete JPEG-LS codestream (SOI .. EOI). lut_cache is
 * the calling handle's quantisation table (jpegls_context.h), reused across frames. */
struct jls_qlut_cache;
pcwt_status pcwt_jpegls_encode_frame(const pcwt_encode_params *params, const pcwt_image_desc *d,
                                     const void *samples, void *dst, size_t cap, size_t *written,
                                     struct jls_qlut_cache *lut_cache, char *err, size_t err_size);

/* backend.c: resolving AUTO/CPU/GPU, with the PCWT_BACKEND environment variable. */
pcwt_backend pcwt_backend_resolve(pcwt_backend requested, pcwt_backend env_choice);
pcwt_backend pcwt_backend_from_env(void);
/* Validates a requested backend and resolves it; GPU without CUDA or a device is an error. */
pcwt_status pcwt_backend_select(pcwt_backend requested, pcwt_backend env_choice, pcwt_backend *out,
                                char *err, size_t err_size);

/* Checks a device number for pcwt_*_set_device: 0 always, others only when present. */
pcwt_status pcwt_device_check(int device, char *err, size_t err_size);

/* status.c */
void pcwt_set_error(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* PCWT_INTERNAL_H */
