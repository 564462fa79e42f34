/*
 * pcwt.h - public C API of libpcwt, a lossless wavelet-tree image codec (PCWT, "Parallel Coding
 * of Wavelet Trees") for medical images. This is the only public header of the library.
 *
 * Shape of the API (after CharLS and TurboJPEG): opaque encoder/decoder handles, a plain image
 * descriptor, one call per job, every call returns a pcwt_status, and each handle keeps a
 * human-readable message for its last error. There is no global state: separate handles may be
 * used from separate threads at the same time; one handle must not be used by two threads at once.
 *
 * The codestream format is specified in docs/FORMAT.md.
 */
#ifndef PCWT_H
#define PCWT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCWT_VERSION_MAJOR 0
#define PCWT_VERSION_MINOR 1
#define PCWT_VERSION_PATCH 0
#define PCWT_VERSION_STRING "0.1.0"

/* Codestream format version written by this library (docs/FORMAT.md). */
#define PCWT_FORMAT_VERSION 1

#if defined(__GNUC__) || defined(__clang__)
#define PCWT_CHECK_RESULT __attribute__((warn_unused_result))
#else
#define PCWT_CHECK_RESULT
#endif

/* PCWT_API marks the library's exported functions: the library is built with hidden visibility
 * (and a linker version script), so a shared libpcwt exports the pcwt_* functions declared here
 * and nothing else. On Windows a DLL build defines PCWT_DLL for itself and its users (dllexport
 * while PCWT_BUILDING_LIBRARY is defined, else dllimport); a static library needs neither. */
#if defined(_WIN32) && defined(PCWT_DLL)
#ifdef PCWT_BUILDING_LIBRARY
#define PCWT_API __declspec(dllexport)
#else
#define PCWT_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define PCWT_API __attribute__((visibility("default")))
#else
#define PCWT_API
#endif

typedef enum pcwt_status {
    PCWT_OK = 0,
    PCWT_ERR_INVALID_ARGUMENT = 1, /* a NULL pointer, bad descriptor or parameter */
    PCWT_ERR_UNSUPPORTED = 2,      /* valid request the codec does not do (e.g. 32-bit samples) */
    PCWT_ERR_OUT_OF_MEMORY = 3,
    PCWT_ERR_BUFFER_TOO_SMALL = 4, /* destination buffer smaller than needed */
    PCWT_ERR_TRUNCATED = 5,        /* codestream ends before its declared content */
    PCWT_ERR_CORRUPT = 6,          /* codestream content is inconsistent */
    PCWT_ERR_CRC_MISMATCH = 7,     /* header or payload checksum does not match */
    PCWT_ERR_LIMIT_EXCEEDED = 8,   /* image larger than the decoder's configured limits */
    PCWT_ERR_BAD_MAGIC = 9,        /* not a PCWT codestream */
    PCWT_ERR_BAD_VERSION = 10,     /* format version or profile this library does not know */
    PCWT_ERR_BACKEND_UNAVAILABLE = 11, /* the requested backend (GPU) is not built or present */
    PCWT_ERR_MISMATCH = 12         /* pcwt_verify_batch: decodes to other samples than expected */
} pcwt_status;

/* Static text for a status code (never NULL). */
PCWT_API const char *pcwt_status_string(pcwt_status status);

/* Library version as "major.minor.patch" (the one the binary was built from). */
PCWT_API const char *pcwt_version_string(void);

/* Description of one frame of samples in memory.
 * Samples are in host byte order, one uint8_t (bits_allocated 8) or one uint16_t/int16_t
 * (bits_allocated 16) per sample, row by row without padding. For components == 3 the
 * layout is pixel-interleaved (RGBRGB...) when planar == 0, or three whole planes when planar == 1.
 * Every bit of every stored word is preserved, including bits above bits_stored. */
typedef struct pcwt_image_desc {
    uint32_t width;         /* columns, >= 1 */
    uint32_t height;        /* rows, >= 1 */
    uint32_t components;    /* 1 or 3 */
    uint32_t bits_allocated;/* 8 or 16 */
    uint32_t bits_stored;   /* 1 .. bits_allocated */
    uint32_t is_signed;     /* 0: unsigned, 1: two's complement in bits_stored bits */
    uint32_t planar;        /* 0: pixel-interleaved, 1: planar (only meaningful for 3 components) */
} pcwt_image_desc;

/* Bytes occupied by the samples of one frame described by desc (0 if desc is invalid). */
PCWT_API size_t pcwt_image_size(const pcwt_image_desc *desc);

typedef enum pcwt_profile {
    PCWT_PROFILE_BASELINE = 0, /* Ao 2014 element and group coding, raw bits */
    PCWT_PROFILE_ENTROPY = 1,  /* the same transform, MQDs and groups; an adaptive binary range
                                  coder per group (docs/FORMAT.md Sec. 5), on the CPU and the GPU */
    PCWT_PROFILE_COMPACT = 2   /* the entropy profile's coding, and planes that use few of their
                                  values coded as ranks in a value map (Sec. 5.5): the smallest */
} pcwt_profile;

/* The reversible colour transform of 3-component images (docs/FORMAT.md Sec. 2.1, the RCT of
 * JPEG 2000): decorrelates R, G and B before the wavelet transform. Ignored for 1 component and
 * for JPEG-LS. */
typedef enum pcwt_colour_transform {
    PCWT_COLOUR_AUTO = 0, /* the RCT with the entropy profile; none with the baseline profile */
    PCWT_COLOUR_NONE = 1,
    PCWT_COLOUR_RCT = 2   /* the RCT in either profile */
} pcwt_colour_transform;

/* The entropy profile's modelled low bits (docs/FORMAT.md Sec. 5.3, plane option bit 0): the two
 * lowest bits of each coefficient's magnitude range-coded instead of stored raw. They pay where
 * those bits are far from random, as in images decoded from a lossy wavelet codestream or
 * processed in a wavelet domain; elsewhere they only cost speed. Ignored by the baseline profile
 * and JPEG-LS. */
typedef enum pcwt_low_bits {
    PCWT_LOW_BITS_AUTO = 0, /* per plane, when they would save at least 1/8 of those bits */
    PCWT_LOW_BITS_OFF = 1,
    PCWT_LOW_BITS_ON = 2
} pcwt_low_bits;

/* The entropy profile's value maps (docs/FORMAT.md Sec. 5.5, plane option bit 1): the sorted set
 * of the values a plane uses is coded with it, and the transform codes each sample's rank in that
 * set. They pay where an image uses a sparse subset of its range (rescaled radiographs, CT padding
 * values far from the body's); codestreams with them need a decoder of this version. Ignored by
 * the baseline profile and JPEG-LS. */
typedef enum pcwt_value_map_mode {
    PCWT_VALUE_MAP_AUTO = 0, /* per plane, when few of the values of its span occur (Sec. 5.5) */
    PCWT_VALUE_MAP_OFF = 1,
    PCWT_VALUE_MAP_ON = 2
} pcwt_value_map_mode;

/* The order of the two lifting passes in each wavelet level (docs/FORMAT.md Sec. 3.2, header flag
 * bit 3). Integer rounding makes the coefficients depend on it. Columns first is JPEG 2000's order:
 * images that went through a JPEG 2000 codec (or another wavelet processing in that order) keep
 * their coefficients on a lattice that the entropy profile's low bits then exploit; on other
 * images the two orders compress alike. */
typedef enum pcwt_lifting_order {
    PCWT_LIFTING_AUTO = 0,       /* columns first with the entropy profile; rows first (B-LDWT+B's
                                    order) with the baseline profile */
    PCWT_LIFTING_ROWS_FIRST = 1,
    PCWT_LIFTING_COLUMNS_FIRST = 2
} pcwt_lifting_order;

/* The reversible filter of the finest wavelet level (docs/FORMAT.md Sec. 3.4, plane option bit 2):
 * 5/3 everywhere, or at level 1 5/11-C (5/3 followed by one more lifting step on the high half),
 * whose smaller high bands pay on smooth images (CT and MR slices reconstructed with soft
 * kernels) and lose on radiographs, ultrasound and lattice-valued images. Auto chooses per plane
 * from an estimate of the level-1 coefficients' bit lengths and keeps 5/3 wherever the modelled
 * low bits would be used with it. Entropy and compact profiles only: the baseline profile is always
 * 5/3; codestreams with 5/11-C need a decoder of this version. */
typedef enum pcwt_level1_filter {
    PCWT_LEVEL1_53 = 0,   /* 5/3 at every level */
    PCWT_LEVEL1_AUTO = 1, /* per plane, 5/11-C where the estimate says it is smaller (the default) */
    PCWT_LEVEL1_511 = 2   /* 5/11-C at level 1 of every plane */
} pcwt_level1_filter;

/* The entropy profile's modelled second mantissa bit (docs/FORMAT.md Sec. 5.3, plane option bit 4):
 * bit q-2 of each magnitude of level q >= 2 range-coded instead of stored raw (where the modelled
 * low bits do not take it). It pays a little on almost every image (the bit is not quite
 * uniform below a Laplacian's mode) for one more range-coded bin per such coefficient. Ignored by
 * the baseline profile and JPEG-LS. */
typedef enum pcwt_second_bit {
    PCWT_SECOND_BIT_ON = 0, /* every plane */
    PCWT_SECOND_BIT_OFF = 1
} pcwt_second_bit;

/* The compact profile's per-plane modular offset (docs/FORMAT.md Sec. 5.6, plane option bit 3): a
 * plane codes its stored values u as (u - r0) mod 2^bits, which moves the wrap-around of the value
 * range into the largest empty stretch of the values it uses. It pays on two's-complement data
 * labelled unsigned and on palette indices; codestreams with it need a decoder of this version.
 * Compact profile, value planes without the colour transform only. */
typedef enum pcwt_offset_mode {
    PCWT_OFFSET_AUTO = 0, /* per plane, when a neighbour-difference estimate falls by 1/5 (Sec. 5.6) */
    PCWT_OFFSET_OFF = 1,
    PCWT_OFFSET_ON = 2    /* every allowed plane, with the estimate's best r0 */
} pcwt_offset_mode;

typedef enum pcwt_backend {
    PCWT_BACKEND_AUTO = 0, /* GPU when built and a device is present, else CPU */
    PCWT_BACKEND_CPU = 1,
    PCWT_BACKEND_GPU = 2
} pcwt_backend;

#define PCWT_DEFAULT_LEVELS 6
/* Group sizes in elements when pcwt_encode_params asks for 0x0: square in the baseline profile
 * (B-LDWT+B's); tall in the entropy profile, where the same number of elements compresses slightly
 * better on most images and the GPU keeps as many groups to run in parallel. */
#define PCWT_DEFAULT_GROUP 32
#define PCWT_ENTROPY_GROUP_ROWS 64
#define PCWT_ENTROPY_GROUP_COLS 16
#define PCWT_MAX_LEVELS 10
#define PCWT_MAX_GROUP 256
/* A level is applied only while the low band keeps at least this many real (unpadded) samples
 * in each dimension. */
#define PCWT_DEFAULT_MIN_LL 2

typedef enum pcwt_codec {
    PCWT_CODEC_PCWT = 0,  /* the PCWT codestream of docs/FORMAT.md */
    PCWT_CODEC_JPEGLS = 1, /* standard JPEG-LS lossless (ITU-T T.87), the interoperable fallback */
    PCWT_CODEC_J2K = 2    /* JPEG 2000 Part 1 lossless ("jpeg2000"): decoded only, by pcwt_decode
                             and the batch calls (docs/jpeg2000.md); pcwt_encode does not write it */
} pcwt_codec;

/* Encoder parameters as one struct: the compatibility interface of version 0.1. No field will be
 * added to it (that would change its size and break binaries built against this header): options
 * that come later exist only as pcwt_option values. New code sets options one at a time
 * (pcwt_encoder_set_option, pcwt_encoder_set_option_name below); pcwt_encoder_set_params is
 * implemented on top of them and stays. */
typedef struct pcwt_encode_params {
    pcwt_codec codec;    /* what pcwt_encode writes; the fields below marked PCWT apply to PCWT */
    uint32_t levels;     /* requested wavelet levels, 0..PCWT_MAX_LEVELS (capped by image size) */
    uint32_t group_rows; /* elements per group vertically, 1..PCWT_MAX_GROUP; 0 (with group_cols
                            0, the default): the profile's size, PCWT_DEFAULT_GROUP square or
                            PCWT_ENTROPY_GROUP_ROWS x PCWT_ENTROPY_GROUP_COLS */
    uint32_t group_cols; /* elements per group horizontally, 1..PCWT_MAX_GROUP, or 0 */
    uint32_t min_ll;     /* minimum low-band size, >= 1 (see PCWT_DEFAULT_MIN_LL) */
    pcwt_profile profile;
    pcwt_backend backend;
    /* JPEG-LS only: interleave mode for 3 components (0 none, 1 line, 2 sample; as CharLS's
     * charls_interleave_mode) and the restart interval in lines (0: none, the default). */
    uint32_t jpegls_interleave;
    uint32_t jpegls_restart_interval;
    pcwt_colour_transform colour_transform; /* PCWT, 3 components */
    pcwt_low_bits low_bits; /* PCWT, entropy profile */
    pcwt_lifting_order lifting_order; /* PCWT */
    pcwt_value_map_mode value_map; /* PCWT, entropy profile */
    pcwt_level1_filter level1_filter; /* PCWT, entropy profile */
    pcwt_offset_mode offset; /* PCWT, compact profile */
    pcwt_second_bit second_bit; /* PCWT, entropy profile */
} pcwt_encode_params;

/* Fill params with the defaults (PCWT codec, 6 levels, the profile's group size, compact profile,
 * automatic colour transform, low bits and lifting order, automatic backend; for JPEG-LS no
 * interleave and no restart markers). */
PCWT_API void pcwt_encode_params_default(pcwt_encode_params *params);

typedef struct pcwt_encoder pcwt_encoder;
typedef struct pcwt_decoder pcwt_decoder;

/* Handles. create returns NULL only when memory is exhausted. */
PCWT_API pcwt_encoder *pcwt_encoder_create(void);
PCWT_API void pcwt_encoder_destroy(pcwt_encoder *enc);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encoder_set_params(pcwt_encoder *enc,
                                                      const pcwt_encode_params *params);
/* Message describing the last error of this handle ("" when none). After a successful call it
 * may hold a notice, e.g. that frames too large for the GPU's memory were encoded on the CPU. */
PCWT_API const char *pcwt_encoder_last_error(const pcwt_encoder *enc);

/* Options of the encoder and decoder handles, set one at a time (as CharLS's and TurboJPEG's
 * setters), so that options can be added without changing a struct. Values are int64_t: enums
 * as their numbers, sizes as counts. Each option has a name and, for enums, value names, used by
 * pcwt_*_set_option_name and printed by the tools (the library's names are the tools' names).
 *   option                      handle   name                 values (names)                  default
 *   PCWT_OPT_CODEC              enc      "codec"              pcwt_codec (pcwt, jpegls)       pcwt
 *   PCWT_OPT_PROFILE            enc      "profile"            pcwt_profile (baseline, entropy, compact) compact
 *   PCWT_OPT_LEVELS             enc      "levels"             0..PCWT_MAX_LEVELS              6
 *   PCWT_OPT_GROUP_ROWS         enc      "group-rows"         0 (the profile's), 1..256       0
 *   PCWT_OPT_GROUP_COLS         enc      "group-cols"         0 (the profile's), 1..256       0
 *                               enc      "group"              ROWSxCOLS: both at once
 *   PCWT_OPT_MIN_LL             enc      "min-ll"             1..65535                        2
 *   PCWT_OPT_COLOUR_TRANSFORM   enc      "colour-transform"   pcwt_colour_transform (auto, none, rct)
 *   PCWT_OPT_LOW_BITS           enc      "low-bits"           pcwt_low_bits (auto, off, on)
 *   PCWT_OPT_LIFTING_ORDER      enc      "lifting"            pcwt_lifting_order (auto, rows, columns)
 *   PCWT_OPT_JPEGLS_INTERLEAVE  enc      "jpegls-interleave"  0..2 (none, line, sample)       none
 *   PCWT_OPT_JPEGLS_RESTART     enc      "jpegls-restart"     lines, 0..65535 (0: none)        0
 *   PCWT_OPT_BACKEND            enc dec  "backend"            pcwt_backend (auto, cpu, gpu)   auto
 *   PCWT_OPT_DEVICE             enc dec  "device"             CUDA device number               0
 *   PCWT_OPT_MAX_SAMPLES        dec      "max-samples"        1..2^63 (see set_max_samples)    PCWT_MAX_SAMPLES
 *   PCWT_OPT_MEMORY_LIMIT       dec      "memory-limit"       bytes, 0: the default            0
 *   PCWT_OPT_VALUE_MAP          enc      "value-map"          pcwt_value_map_mode (auto, off, on)
 *   PCWT_OPT_LEVEL1_FILTER      enc      "level1-filter"      pcwt_level1_filter (53, auto, 511) auto
 *   PCWT_OPT_OFFSET             enc      "offset"             pcwt_offset_mode (auto, off, on) auto
 *   PCWT_OPT_GPU_CHUNKS         enc dec  "gpu-chunks"         0 (by the batch's size), 1..65536 0
 *   PCWT_OPT_GPU_MEMORY_LIMIT   enc dec  "gpu-memory-limit"   bytes, 0: what the device has free 0
 *   PCWT_OPT_SECOND_BIT         enc      "second-bit"         pcwt_second_bit (on, off)       on
 *   PCWT_OPT_GPU_BIN_ARENA      enc      "gpu-bin-arena"      bytes, 0: what the batch needs   0
 * The group size: a dimension left 0 takes the profile's size in that dimension. The GPU backend
 * codes a large batch in chunks that overlap on the device; gpu-chunks N cuts every batch into
 * N chunks, however small (for tests and measurements; the bytes do not change). gpu-memory-limit
 * caps the device memory a handle's GPU batches take (for a device shared with other work): a
 * batch is cut to fit, and a frame that cannot fit is coded on the CPU. gpu-bin-arena caps the
 * GPU encoder's buffer of the groups' bins in a chunk; the groups past it are coded by the slower
 * way that binarises them as it goes (for tests of that way; the bytes do not change). */
typedef enum pcwt_option {
    PCWT_OPT_CODEC = 1,
    PCWT_OPT_PROFILE = 2,
    PCWT_OPT_LEVELS = 3,
    PCWT_OPT_GROUP_ROWS = 4,
    PCWT_OPT_GROUP_COLS = 5,
    PCWT_OPT_MIN_LL = 6,
    PCWT_OPT_COLOUR_TRANSFORM = 7,
    PCWT_OPT_LOW_BITS = 8,
    PCWT_OPT_LIFTING_ORDER = 9,
    PCWT_OPT_JPEGLS_INTERLEAVE = 10,
    PCWT_OPT_JPEGLS_RESTART = 11,
    PCWT_OPT_BACKEND = 12,
    PCWT_OPT_DEVICE = 13,
    PCWT_OPT_MAX_SAMPLES = 14,
    PCWT_OPT_MEMORY_LIMIT = 15,
    PCWT_OPT_VALUE_MAP = 16,
    PCWT_OPT_LEVEL1_FILTER = 17,
    PCWT_OPT_OFFSET = 18,
    PCWT_OPT_GPU_CHUNKS = 19,
    PCWT_OPT_GPU_MEMORY_LIMIT = 20,
    PCWT_OPT_SECOND_BIT = 21,
    PCWT_OPT_GPU_BIN_ARENA = 22
} pcwt_option;

/* Set one option. PCWT_ERR_INVALID_ARGUMENT (with the handle's message) for an option the handle
 * does not have or a value out of range, PCWT_ERR_UNSUPPORTED for a profile this library does
 * not know, PCWT_ERR_BACKEND_UNAVAILABLE for a GPU backend or device that is not there. A refused
 * value leaves the handle as it was. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encoder_set_option(pcwt_encoder *enc, pcwt_option option,
                                                               int64_t value);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_set_option(pcwt_decoder *dec, pcwt_option option,
                                                               int64_t value);
/* The value as set (a group size of 0 stays 0, PCWT_BACKEND_AUTO stays AUTO: see
 * pcwt_encoder_backend for the backend it resolved to). */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encoder_get_option(const pcwt_encoder *enc,
                                                               pcwt_option option, int64_t *value);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_get_option(const pcwt_decoder *dec,
                                                               pcwt_option option, int64_t *value);

/* Set an option by its name and a value in text, as the tools take them on their command lines:
 * value names ("entropy", "rct", "columns", "gpu", ...) or decimal numbers; "group" takes
 * ROWSxCOLS. An unknown name or a bad value is PCWT_ERR_INVALID_ARGUMENT with a message naming
 * what is accepted, e.g. "profile 'fast': expected baseline, entropy or compact". */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encoder_set_option_name(pcwt_encoder *enc,
                                                                    const char *name,
                                                                    const char *value);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_set_option_name(pcwt_decoder *dec,
                                                                    const char *name,
                                                                    const char *value);

/* The names, without a handle. pcwt_option_from_name: the option of a name ("group" is none:
 * PCWT_ERR_INVALID_ARGUMENT). pcwt_option_parse: a value in text for an option (a value name or
 * a decimal number in the option's range); PCWT_ERR_INVALID_ARGUMENT when it is neither. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_option_from_name(const char *name, pcwt_option *option);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_option_parse(pcwt_option option, const char *value,
                                                         int64_t *out);
/* The option's name (NULL for an unknown option). */
PCWT_API const char *pcwt_option_name(pcwt_option option);
/* The name of an enum option's value ("entropy" for PCWT_OPT_PROFILE, 1); NULL for a number
 * option or a value without a name. */
PCWT_API const char *pcwt_option_value_name(pcwt_option option, int64_t value);
/* The value names of an enum option joined by sep ("baseline|entropy" with "|"), for help
 * texts and messages; written into buf as snprintf does. Returns the length of the whole text
 * (0 for a number option). */
PCWT_API size_t pcwt_option_choices(pcwt_option option, const char *sep, char *buf, size_t size);
/* Shorthands: "baseline" / "entropy"; "pcwt" / "jpegls"; "auto" / "cpu" / "gpu" ("unknown" for a
 * value without a name). */
PCWT_API const char *pcwt_profile_name(pcwt_profile profile);
PCWT_API const char *pcwt_codec_name(pcwt_codec codec);
PCWT_API const char *pcwt_backend_name(pcwt_backend backend);

/* 1 when the two encoders write the same codestream for every frame: the options that decide the
 * bytes are equal after resolving (a group size of 0 against the profile's; backend, device,
 * gpu-chunks and gpu-memory-limit do not count: every backend writes the same bytes). 0 otherwise
 * or when either is NULL. */
PCWT_API int pcwt_encoder_same_coding(const pcwt_encoder *a, const pcwt_encoder *b);
/* Give dst the options of src that decide the codestream (all but backend, device and the gpu-* options), so that
 * it codes as src does: pcwt_encoder_same_coding(dst, src) is then 1. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encoder_copy_coding(pcwt_encoder *dst,
                                                                const pcwt_encoder *src);

/* Upper bound of the codestream size for one frame (0 if desc is invalid). */
PCWT_API size_t pcwt_encode_bound(const pcwt_image_desc *desc);

/* Encode one frame. samples_size must be pcwt_image_size(desc); dst_capacity of
 * pcwt_encode_bound(desc) always suffices. *written receives the codestream size. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encode(pcwt_encoder *enc, const pcwt_image_desc *desc,
                                          const void *samples, size_t samples_size, void *dst,
                                          size_t dst_capacity, size_t *written);

/* One frame of a batch: inputs, the caller's output buffer, and per-frame results. */
typedef struct pcwt_frame_job {
    pcwt_image_desc desc;
    const void *samples;
    size_t samples_size;
    void *dst;
    size_t dst_capacity;
    size_t written;     /* out */
    pcwt_status status; /* out */
} pcwt_frame_job;

/* Encode count frames (sizes may differ). Returns PCWT_OK when every frame succeeded, otherwise
 * the status of the first failing frame; each job's status says how it went. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encode_batch(pcwt_encoder *enc, pcwt_frame_job *jobs,
                                                size_t count);

/* Most planes a codestream holds: 3 components, each with an optional high-bit plane. A limit of
 * the format (docs/FORMAT.md), not of this version: pcwt_header_info keeps this size. */
#define PCWT_MAX_PLANES 6

/* One coded plane of a codestream (pcwt_header_plane). */
typedef struct pcwt_plane_info {
    uint32_t component;
    uint32_t kind;    /* 0: sample values, 1: bits above bits_stored */
    int32_t qmax;
    uint32_t low_bits; /* 1: the plane models its low magnitude bits (option bit 0) */
    uint64_t payload_length;
    uint32_t payload_crc32;
    uint32_t value_map; /* 1: the plane holds the ranks of its values in a value map (option bit 1) */
    uint32_t level1_511; /* 1: the plane's finest level uses the 5/11-C filter (option bit 2) */
    uint32_t offset; /* 1: the plane codes its values with a modular offset (option bit 3) */
    uint32_t second_bit; /* 1: the plane models the second mantissa bit (option bit 4) */
} pcwt_plane_info;

/* What a codestream header says, read without decoding the payload. */
typedef struct pcwt_header_info {
    uint32_t format_version;
    pcwt_profile profile;
    pcwt_image_desc desc;
    uint32_t levels;      /* wavelet levels actually applied */
    uint32_t group_rows, group_cols;
    uint32_t colour_transform; /* 1: the value planes hold the RCT (flag bit 2, FORMAT.md Sec. 2.1) */
    uint32_t columns_first;    /* 1: each level lifts columns, then rows (flag bit 3, Sec. 3.2) */
    uint32_t plane_count; /* coded planes: one per component, plus high-bit planes if needed */
    pcwt_plane_info planes[PCWT_MAX_PLANES]; /* the first plane_count (or pcwt_header_plane) */
    size_t header_length;    /* bytes before the first payload */
    size_t codestream_length;/* header plus all payloads */
} pcwt_header_info;

/* Parse and validate the header (including its CRC). Does not touch the payloads.
 * A JPEG 2000 codestream (FF 4F FF 51) or JP2 file is read as the decoder's third codec
 * (PCWT_CODEC_J2K, docs/jpeg2000.md): format_version 0 tells it apart; desc is what pcwt_decode
 * writes (interleaved, bits_allocated 8 up to 8 bits of precision, else 16; signed samples
 * sign-extended), levels those of component 0, group_rows x group_cols its code-block size,
 * colour_transform the RCT, columns_first 1; profile, plane_count and planes mean nothing (0);
 * header_length is the main header's; codestream_length where the tile-parts' lengths (Psot) say
 * the codestream ends (EOC included when src shows it; SIZE_MAX when src does not tell: a
 * tile-part running to EOC, or the next one beyond src). PCWT_ERR_UNSUPPORTED (with the
 * feature named by pcwt_decode's message) for what the library does not decode. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_read_header(const void *src, size_t src_size,
                                               pcwt_header_info *info);

/* Plane index (0 .. plane_count - 1) of a header read by pcwt_read_header, checked against
 * plane_count: PCWT_ERR_INVALID_ARGUMENT for another index or a NULL pointer. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_header_plane(const pcwt_header_info *info,
                                                         uint32_t index, pcwt_plane_info *out);

PCWT_API pcwt_decoder *pcwt_decoder_create(void);
PCWT_API void pcwt_decoder_destroy(pcwt_decoder *dec);
PCWT_API const char *pcwt_decoder_last_error(const pcwt_decoder *dec);

/* The format's limit on samples per frame (width * height * components): the encoder refuses
 * larger frames (PCWT_ERR_LIMIT_EXCEEDED) and it is the decoder's default max_samples. */
#define PCWT_MAX_SAMPLES ((uint64_t)1 << 30)

/* Refuse codestreams declaring more than max_samples samples (width * height * components).
 * Default and largest effective value: PCWT_MAX_SAMPLES. Memory is only ever allocated after
 * this check. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_set_max_samples(pcwt_decoder *dec, uint64_t max_samples);

/* Memory budget of a decoder handle, in bytes of host memory: pcwt_decode, pcwt_decode_batch and
 * pcwt_verify_batch (CPU and GPU backends) refuse, with PCWT_ERR_LIMIT_EXCEEDED and a message
 * "needs N MiB, limit M MiB", a codestream (or a batch whose codestreams together) would need more
 * than this, checked against the header before anything is allocated. What is counted is
 * pcwt_decode_memory_bound of each codestream (the decoded samples included, see there).
 * 0 selects the default, pcwt_default_memory_limit(), evaluated at each call. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_set_memory_limit(pcwt_decoder *dec, uint64_t bytes);

/* The default memory budget: 3/4 of the machine's physical memory, and never more than what the
 * process's RLIMIT_AS and RLIMIT_DATA soft limits (ulimit -v, ulimit -d) leave beyond what it
 * already uses, so that under such a limit an oversized codestream is refused before allocating
 * rather than failing in the middle. Never 0 (at least 64 MiB). */
PCWT_API uint64_t pcwt_default_memory_limit(void);

/* Host bytes a decode of this codestream occupies at most: the decoder's working memory (the CPU
 * path's, plus in builds with CUDA the GPU path's pinned staging, which stays allocated while the
 * CPU path decodes what the device could not take) plus the decoded samples
 * (pcwt_image_size(&info->desc)), which the caller's output buffer or, for pcwt_verify_batch,
 * the decoder holds: the output buffer is INCLUDED. UINT64_MAX when info is NULL or its
 * descriptor invalid. A handle on the CPU backend counts the CPU path only. The GPU backend's
 * device memory is budgeted separately, by the device's free memory (frames that do not fit are
 * decoded on the CPU). */
PCWT_API uint64_t pcwt_decode_memory_bound(const pcwt_header_info *info);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_set_backend(pcwt_decoder *dec, pcwt_backend backend);

/* Decode a whole codestream into dst, in the layout its header describes (desc.planar).
 * dst_capacity must be at least pcwt_image_size(&info.desc). JPEG 2000 codestreams (see
 * pcwt_read_header) are decoded too, under the same limits; the batch calls take them as well,
 * mixed with PCWT codestreams. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decode(pcwt_decoder *dec, const void *src, size_t src_size,
                                          void *dst, size_t dst_capacity);

typedef struct pcwt_decode_job {
    const void *src;
    size_t src_size;
    void *dst;
    size_t dst_capacity;
    pcwt_status status; /* out */
} pcwt_decode_job;

/* Decode count codestreams (the GPU backend decodes them together). Returns PCWT_OK when every
 * job succeeded, otherwise the status of the first failing one. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decode_batch(pcwt_decoder *dec, pcwt_decode_job *jobs,
                                                size_t count);

/* A codestream and the samples it must decode to (pcwt_verify_batch). */
typedef struct pcwt_verify_job {
    const void *src;
    size_t src_size;
    const void *expected;      /* in the layout of the header's desc, as pcwt_decode writes it */
    size_t expected_size;
    uint64_t first_difference; /* out: with PCWT_ERR_MISMATCH the first byte that differs (the
                                  smaller size when the sizes differ), else UINT64_MAX */
    pcwt_status status;        /* out: PCWT_OK when the samples are exactly the expected ones */
} pcwt_verify_job;

/* Decode count codestreams and compare every byte of each with its expected samples: the check
 * of a copy before its original goes. The GPU backend compares on the device, with no decoded
 * sample copied back (expected samples in pcwt_host_alloc memory go up without staging). A job
 * that decodes to other samples gets PCWT_ERR_MISMATCH; one that does not decode, the decoder's
 * status. Returns PCWT_OK when every job matched, otherwise the first failing job's status. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_verify_batch(pcwt_decoder *dec, pcwt_verify_job *jobs,
                                                size_t count);

/* Transcoding: codestreams decoded by a decoder handle, coded again by an encoder handle and the
 * written codestreams verified, in one batch call (docs/transcode.md). A transcoder borrows the
 * two handles (the caller keeps them alive and uses the three from one thread at a time) and
 * keeps the memory the samples are handed over in from call to call. */
typedef struct pcwt_transcoder pcwt_transcoder;

/* NULL when either handle is NULL or out of memory. */
PCWT_API pcwt_transcoder *pcwt_transcoder_create(pcwt_decoder *dec, pcwt_encoder *enc);
PCWT_API void pcwt_transcoder_destroy(pcwt_transcoder *t);
/* The message of the first failure the last pcwt_transcode_batch met ("" when none failed). */
PCWT_API const char *pcwt_transcoder_last_error(const pcwt_transcoder *t);

/* One codestream of pcwt_transcode_batch. */
typedef struct pcwt_transcode_job {
    const void *src;           /* a codestream the decoder reads (JPEG 2000, HTJ2K or PCWT) */
    size_t src_size;
    void *dst;                 /* the encoder's codestream; pcwt_encode_bound(&desc) suffices */
    size_t dst_capacity;
    void *samples;             /* optional (NULL: not wanted): the decoded samples also here, in */
    size_t samples_capacity;   /* the layout of pcwt_read_header's desc */
    pcwt_image_desc desc;      /* out: the decoded image (once its header was read) */
    size_t written;            /* out: the codestream's bytes (0 unless status is PCWT_OK) */
    uint32_t on_device;        /* out: 1 when its samples were handed over on the device */
    pcwt_status status;        /* out: PCWT_OK once the written codestream decoded to exactly the
                                  samples decoded from src; PCWT_ERR_MISMATCH when it did not */
} pcwt_transcode_job;

/* Decode count codestreams with the decoder, code each with the encoder and verify every written
 * codestream: decoded again with the decoder and compared, byte for byte, with the samples
 * decoded from its source. When both handles run on the GPU backend of one device, the batch's
 * samples are handed over in memory placed on that device: the decoder writes them there, the
 * encoder and the comparison read them there, and they come to the host only where samples is
 * set (on_device 1); a frame the device cannot take is decoded or coded on the CPU through the
 * same memory. Otherwise they go through host memory. Either way the bytes written are those of
 * pcwt_decode_batch, pcwt_encode_batch and pcwt_verify_batch on the same handles. Every job gets
 * a status; returns PCWT_OK when every job succeeded, otherwise the first failing job's status
 * (pcwt_transcoder_last_error says which stage failed and why). */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_transcode_batch(pcwt_transcoder *t, pcwt_transcode_job *jobs,
                                                            size_t count);

/* The backend a handle resolved to: PCWT_BACKEND_CPU or PCWT_BACKEND_GPU. AUTO means the GPU
 * when this build has CUDA and a device is present. The environment variable PCWT_BACKEND
 * (cpu, gpu or auto), read when a handle is created, decides for handles left on AUTO. AUTO is
 * resolved on the first call that needs it (these, or the first that codes), so that making and
 * setting up a handle starts no CUDA. */
PCWT_API pcwt_backend pcwt_encoder_backend(const pcwt_encoder *enc);
PCWT_API pcwt_backend pcwt_decoder_backend(const pcwt_decoder *dec);

/* The GPU (CUDA device number, 0 .. count-1) a handle's GPU backend uses; default 0. The handle's
 * GPU context is made on that device (a context on another device is released), and every GPU
 * call of the handle runs there, so that one process can drive several GPUs with one handle per
 * device (each used by one thread). A device that is not present is refused with
 * PCWT_ERR_BACKEND_UNAVAILABLE: without CUDA (or without a device) only 0 is accepted. */
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_encoder_set_device(pcwt_encoder *enc, int device);
PCWT_API PCWT_CHECK_RESULT pcwt_status pcwt_decoder_set_device(pcwt_decoder *dec, int device);

/* 1 when this build includes the CUDA backend. */
PCWT_API int pcwt_has_cuda(void);

/* Host memory for sample and codestream buffers. With the CUDA backend and a device present it
 * is page-locked, so the GPU path transfers it directly, without staging copies; otherwise it is
 * ordinary heap memory. Free it with pcwt_host_free (NULL is allowed). */
PCWT_API void *pcwt_host_alloc(size_t size);
PCWT_API void pcwt_host_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* PCWT_H */
