/* verify.c - a verify job's decoded samples against its expected ones, on the host (the GPU
 * verifier compares on the device, compare_gpu.cu, and reports the same fields). */
#include "status.h"
#include "verify.h"

#include <string.h>

/* The first byte where a and b differ (n when none). */
static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
    const size_t block = (size_t)1 << 16;
    size_t at = 0;
    while (at < n) {
        const size_t len = n - at < block ? n - at : block;
        if (memcmp(a + at, b + at, len) != 0)
            break;
        at += len;
    }
    while (at < n && a[at] == b[at])
        at++;
    return at;
}

pcwt_status pcwt_verify_compare(pcwt_verify_job *j, const uint8_t *decoded, size_t size, char *err,
                                size_t err_size)
{
    if (size != j->expected_size) { /* as the GPU verifier, which does not compare then */
        j->first_difference = size < j->expected_size ? size : j->expected_size;
        pcwt_set_error(err, err_size, "decoded %zu bytes of samples, %zu expected", size,
                       j->expected_size);
        return PCWT_ERR_MISMATCH;
    }
    const size_t at = first_difference(decoded, (const uint8_t *)j->expected, size);
    if (at == size) {
        j->first_difference = UINT64_MAX;
        return PCWT_OK;
    }
    j->first_difference = at;
    pcwt_set_error(err, err_size, "decoded samples differ from the expected ones at byte %zu", at);
    return PCWT_ERR_MISMATCH;
}
