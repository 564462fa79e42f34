/* status.c - status strings, version, and per-handle error messages. */
#include "pcwt.h"
#include "status.h"

#include <stdarg.h>

#include <stdio.h>

const char *pcwt_status_string(pcwt_status status)
{
    switch (status) {
    case PCWT_OK: return "success";
    case PCWT_ERR_INVALID_ARGUMENT: return "invalid argument";
    case PCWT_ERR_UNSUPPORTED: return "unsupported image or parameter";
    case PCWT_ERR_OUT_OF_MEMORY: return "out of memory";
    case PCWT_ERR_BUFFER_TOO_SMALL: return "destination buffer too small";
    case PCWT_ERR_TRUNCATED: return "codestream truncated";
    case PCWT_ERR_CORRUPT: return "codestream corrupt";
    case PCWT_ERR_CRC_MISMATCH: return "codestream checksum mismatch";
    case PCWT_ERR_LIMIT_EXCEEDED: return "image exceeds the decoder's limits";
    case PCWT_ERR_BAD_MAGIC: return "not a PCWT codestream";
    case PCWT_ERR_BAD_VERSION: return "unknown PCWT format version or profile";
    case PCWT_ERR_BACKEND_UNAVAILABLE: return "requested backend not available";
    case PCWT_ERR_MISMATCH: return "decoded samples differ from the expected ones";
    }
    return "unknown status";
}

const char *pcwt_version_string(void) { return PCWT_VERSION_STRING; }

void pcwt_set_error(char *buf, size_t size, const char *fmt, ...)
{
    if (!buf || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}
