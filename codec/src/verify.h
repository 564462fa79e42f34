/* verify.h - a verify job's decoded samples against its expected ones, on the host (verify.c). */
#ifndef PCWT_VERIFY_H
#define PCWT_VERIFY_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

/* PCWT_OK, or PCWT_ERR_MISMATCH with job->first_difference set. */
pcwt_status pcwt_verify_compare(pcwt_verify_job *job, const uint8_t *decoded, size_t size,
                                char *err, size_t err_size);

#endif /* PCWT_VERIFY_H */
