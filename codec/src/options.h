/* options.h - the options of the encoder and decoder handles by number and by name (options.c):
 * one table of names, ranges and value names behind pcwt_*_set_option, pcwt_option_parse and the
 * tools' command lines. Not part of the public API. */
#ifndef PCWT_OPTIONS_H
#define PCWT_OPTIONS_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

/* Which handles have an option. */
#define PCWT_OPTION_ENCODER 1u
#define PCWT_OPTION_DECODER 2u

/* The handles an option belongs to (0 for an unknown option). */
unsigned pcwt_option_owners(pcwt_option option);

/* Whether the option decides the codestream (all encoder options but backend, device and the
 * gpu-* options). */
int pcwt_option_is_coding(pcwt_option option);

/* A value in the option's range: PCWT_OK, else PCWT_ERR_INVALID_ARGUMENT (PCWT_ERR_UNSUPPORTED for
 * a profile) with a message. */
pcwt_status pcwt_option_check(pcwt_option option, int64_t value, char *err, size_t err_size);

/* The GPU batch settings an encoder and a decoder both keep for their context (PCWT_OPT_GPU_CHUNKS,
 * PCWT_OPT_GPU_MEMORY_LIMIT; 0: by the batch's size, what the device has free), and the encoder's
 * PCWT_OPT_GPU_BIN_ARENA (0: what the batch needs). */
typedef struct pcwt_gpu_limits {
    uint32_t chunks;
    uint64_t memory_limit;
    uint64_t bin_arena;
} pcwt_gpu_limits;

/* Whether the option is one of pcwt_gpu_limits'. */
int pcwt_gpu_limits_has(pcwt_option option);
/* Set one of them, range-checked (pcwt_option_check's status and message). */
pcwt_status pcwt_gpu_limits_set(pcwt_gpu_limits *l, pcwt_option option, int64_t value, char *err, size_t err_size);
/* Its value (the option must be one of them). */
int64_t pcwt_gpu_limits_get(const pcwt_gpu_limits *l, pcwt_option option);

/* Set a coding option in p (the options as set: a group dimension may be 0). Checks the value
 * against the option's range: PCWT_ERR_INVALID_ARGUMENT, or PCWT_ERR_UNSUPPORTED for an unknown
 * profile, with a message. */
pcwt_status pcwt_params_set(pcwt_encode_params *p, pcwt_option option, int64_t value, char *err,
                            size_t err_size);
/* A coding option's value, or backend's, from p. */
pcwt_status pcwt_params_get(const pcwt_encode_params *p, pcwt_option option, int64_t *value);

/* The checks of pcwt_encoder_set_params (version 0.1's messages; a group size is 0x0 or both
 * dimensions 1..PCWT_MAX_GROUP). The backend is checked by the caller. */
pcwt_status pcwt_params_check(const pcwt_encode_params *p, char *err, size_t err_size);

/* Whether encoders with these resolved parameters write the same bytes (backend aside). */
int pcwt_params_same_coding(const pcwt_encode_params *a, const pcwt_encode_params *b);

/* An option set by name: "group" gives two (rows, columns), any other name one. On error a
 * message in err. */
typedef struct pcwt_named_value {
    size_t count;
    pcwt_option option[2];
    int64_t value[2];
} pcwt_named_value;
pcwt_status pcwt_option_parse_named(const char *name, const char *value, pcwt_named_value *out,
                                    char *err, size_t err_size);

#endif /* PCWT_OPTIONS_H */
