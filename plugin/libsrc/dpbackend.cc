/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the backend for an image's size (dpbackend.h).
 */

#include "dpbackend.h"

#include <cstdlib>

pcwt_backend DPCWTBackendForSize(pcwt_backend asked, uint64_t bytes)
{
  const char *env = std::getenv("PCWT_BACKEND");
  if (asked != PCWT_BACKEND_AUTO || (env != NULL && *env != '\0')) return asked;
  return bytes < DPCWT_GPU_MIN_BYTES ? PCWT_BACKEND_CPU : PCWT_BACKEND_AUTO;
}
