// device_samples.cu - the memory a batch's samples are handed over in, from one handle's batch
// call to another's (pcwt_transcode_batch, codec/src/transcode.c): managed memory placed on the
// device, so that the device's copies in and out of it stay on the device, while whatever the
// host does with it (a frame decoded or coded on the CPU, the samples asked back) still works.
#include "gpu_context.h"

#include <cstdio>

extern "C" void *pcwt_gpu_managed_alloc(int device, size_t size)
{
    void *p = nullptr;
    if (cudaSetDevice(device) != cudaSuccess || cudaMallocManaged(&p, size ? size : 1) != cudaSuccess) {
        cudaGetLastError(); // a failed allocation leaves the context usable
        return nullptr;
    }
    // its pages made on the device now, not at the decoder's first write
    cudaMemLocation on{};
    on.type = cudaMemLocationTypeDevice;
    on.id = device;
    if (cudaMemPrefetchAsync(p, size ? size : 1, on, 0, nullptr) != cudaSuccess ||
        cudaStreamSynchronize(nullptr) != cudaSuccess)
        cudaGetLastError(); // only where the pages are made first
    return p;
}

extern "C" void pcwt_gpu_managed_free(int device, void *ptr)
{
    if (!ptr)
        return;
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(ptr) != cudaSuccess)
        cudaGetLastError();
}

extern "C" int pcwt_gpu_is_managed(const void *ptr)
{
    cudaPointerAttributes a{};
    if (!ptr || cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeManaged;
}

extern "C" pcwt_status pcwt_gpu_copy(void *dst, const void *src, size_t size, char *err, size_t err_size)
{
    if (!size)
        return PCWT_OK;
    const cudaError_t e = cudaMemcpy(dst, src, size, cudaMemcpyDefault);
    if (e == cudaSuccess)
        return PCWT_OK;
    cudaGetLastError();
    std::snprintf(err, err_size, "copying %zu bytes of samples: %s", size, cudaGetErrorString(e));
    return PCWT_ERR_BACKEND_UNAVAILABLE;
}
