/* transcode.h - pcwt_transcode_batch's internal hook for the tests (transcode.c). */
#ifndef PCWT_TRANSCODE_H
#define PCWT_TRANSCODE_H

#include "pcwt.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tests: the decoded samples of job `job` get one byte changed after they were coded and before
 * they are compared, so that the verification must fail (SIZE_MAX: none, the default). */
void pcwt_transcoder_test_fault(pcwt_transcoder *t, size_t job);

#ifdef __cplusplus
}
#endif

#endif /* PCWT_TRANSCODE_H */
