// gpu_check.h - every CUDA call and launch is checked; failures become a pcwt_status + message.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

namespace pcwt_gpu_detail {

struct CudaError {
    cudaError_t code;
    std::string what;
};

[[noreturn]] inline void throw_cuda(cudaError_t e, const char *call, const char *file, int line)
{
    char buf[320];
    std::snprintf(buf, sizeof buf, "CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(e),
                  cudaGetErrorString(e), call, file, line);
    throw CudaError{e, buf};
}

} // namespace pcwt_gpu_detail

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            pcwt_gpu_detail::throw_cuda(e_, #call, __FILE__, __LINE__);                            \
    } while (0)

// After a kernel launch: launch-configuration errors surface here.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
