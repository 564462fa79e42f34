/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the backend the codecs and tools code an image with when the GPU or the
 *           CPU is not asked for.
 *
 *  libpcwt's AUTO means the GPU when a device is present. A process that codes one small image
 *  (dcmdpcwt, a stock tool with libdcmpcwt_preload.so) would then pay for starting the CUDA
 *  driver, a context and its first buffers, far more than the CPU takes to code the image
 *  (bench/results/cpu-2026-11-28-single-file.md).
 */

#ifndef DCMPCWT_DPBACKEND_H
#define DCMPCWT_DPBACKEND_H

#include "pcwt.h"

#include <cstdint>

/// the bytes of samples from which an image goes to the GPU when no backend is asked for
const uint64_t DPCWT_GPU_MIN_BYTES = uint64_t(32) << 20;

/** the backend for an image of `bytes` bytes of samples: `asked`, unless it is PCWT_BACKEND_AUTO
 *  and PCWT_BACKEND does not choose in the environment; then the CPU below DPCWT_GPU_MIN_BYTES,
 *  else AUTO (the GPU when present)
 */
pcwt_backend DPCWTBackendForSize(pcwt_backend asked, uint64_t bytes);

#endif
