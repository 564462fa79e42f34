/* backend.c - which backend a handle uses. An explicit CPU or GPU request wins; AUTO follows the
 * environment variable PCWT_BACKEND (read when the handle is created), and otherwise means the
 * GPU when this build has CUDA and a device is present. */
#include "internal.h"

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

pcwt_backend pcwt_backend_resolve(pcwt_backend requested, pcwt_backend env_choice)
{
    const pcwt_backend want = requested != PCWT_BACKEND_AUTO ? requested : env_choice;
    if (want != PCWT_BACKEND_AUTO)
        return want;
#ifdef PCWT_HAVE_CUDA
    if (pcwt_gpu_available())
        return PCWT_BACKEND_GPU;
#endif
    return PCWT_BACKEND_CPU;
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
