/* backend.c - which backend a handle uses. An explicit CPU or GPU request wins; AUTO follows the
 * environment variable PCWT_BACKEND (read when the handle is created), and otherwise means the
 * GPU when this build has CUDA and a device is present, which the handle asks on the first call
 * that codes (so that a handle that does no work never starts CUDA). */
#include "backend.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#ifdef PCWT_HAVE_CUDA
#include "gpu_backend.h"
#endif

int pcwt_has_cuda(void)
{
#ifdef PCWT_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

pcwt_backend pcwt_backend_from_env(void)
{
    const char *v = getenv("PCWT_BACKEND");
    if (v && strcmp(v, "cpu") == 0)
        return PCWT_BACKEND_CPU;
    if (v && strcmp(v, "gpu") == 0)
        return PCWT_BACKEND_GPU;
    return PCWT_BACKEND_AUTO;
}

pcwt_backend pcwt_backend_choice(pcwt_backend requested, pcwt_backend env_choice)
{
    return requested != PCWT_BACKEND_AUTO ? requested : env_choice;
}

pcwt_backend pcwt_backend_resolve(pcwt_backend requested, pcwt_backend env_choice)
{
    const pcwt_backend want = pcwt_backend_choice(requested, env_choice);
    if (want != PCWT_BACKEND_AUTO)
        return want;
#ifdef PCWT_HAVE_CUDA
    if (pcwt_gpu_available())
        return PCWT_BACKEND_GPU;
#endif
    return PCWT_BACKEND_CPU;
}

pcwt_status pcwt_backend_select(pcwt_backend requested, pcwt_backend env_choice, pcwt_backend *out,
                                char *err, size_t err_size)
{
    if (requested != PCWT_BACKEND_AUTO && requested != PCWT_BACKEND_CPU &&
        requested != PCWT_BACKEND_GPU) {
        pcwt_set_error(err, err_size, "unknown backend %d", (int)requested);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const pcwt_backend b = pcwt_backend_choice(requested, env_choice);
    if (b == PCWT_BACKEND_GPU) {
#ifdef PCWT_HAVE_CUDA
        if (!pcwt_gpu_available()) {
            pcwt_set_error(err, err_size, "GPU backend requested but no CUDA device is present");
            return PCWT_ERR_BACKEND_UNAVAILABLE;
        }
#else
        pcwt_set_error(err, err_size, "GPU backend requested but this build has no CUDA");
        return PCWT_ERR_BACKEND_UNAVAILABLE;
#endif
    }
    *out = b;
    return PCWT_OK;
}

pcwt_status pcwt_device_check(int device, char *err, size_t err_size)
{
    if (device < 0) {
        pcwt_set_error(err, err_size, "device %d: device numbers start at 0", device);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    if (device == 0)
        return PCWT_OK;
#ifdef PCWT_HAVE_CUDA
    const int n = pcwt_gpu_device_count();
    if (device >= n) {
        pcwt_set_error(err, err_size, "GPU %d requested but %d CUDA device(s) are present", device, n);
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    return PCWT_OK;
#else
    pcwt_set_error(err, err_size, "GPU %d requested but this build has no CUDA", device);
    return PCWT_ERR_BACKEND_UNAVAILABLE;
#endif
}

void *pcwt_host_alloc(size_t size)
{
#ifdef PCWT_HAVE_CUDA
    void *p = pcwt_gpu_host_alloc(size);
    if (p)
        return p;
#endif
    return malloc(size ? size : 1);
}

void pcwt_host_free(void *ptr)
{
    if (!ptr)
        return;
#ifdef PCWT_HAVE_CUDA
    if (pcwt_gpu_host_free(ptr))
        return;
#endif
    free(ptr);
}
