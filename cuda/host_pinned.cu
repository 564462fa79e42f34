// host_pinned.cu - page-locked host memory (pcwt_host_alloc and the staging buffers): an anonymous
// mapping, in 2 MB pages where the kernel gives them (transparent huge pages on madvise), committed
// and then registered with CUDA: cheaper to allocate and free than cudaMallocHost, with the same
// transfer speed (bench/results/gpu-h100-2026-11-25-recompress-pinned.md).
#include "gpu_context.h"

#include <cstdint>
#include <cstring>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace {

// The first page of a mapping says what it is; the caller's memory starts on the next.
struct PinnedHeader {
    uint64_t magic;
    void *user;
    size_t length; // of the whole mapping
};
constexpr uint64_t kMagic = 0x70637774706e6e64ull; // "pcwtpnnd"
constexpr size_t kPage = 4096;
constexpr size_t kHuge = size_t(2) << 20;

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

} // namespace

cudaError_t gpu_pinned_alloc(void **out, size_t n, bool mapped)
{
    *out = nullptr;
#ifdef __linux__
    const bool huge = n >= kHuge / 2;
    const size_t length = round_up(n + kPage, huge ? kHuge : kPage);
    // a 2 MB-aligned start, so that every 2 MB of the buffer can be one page
    const size_t span = length + (huge ? kHuge : 0);
    void *m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return cudaErrorMemoryAllocation;
    uint8_t *base = static_cast<uint8_t *>(m);
    if (huge) {
        uint8_t *aligned = reinterpret_cast<uint8_t *>(round_up(reinterpret_cast<uintptr_t>(base), kHuge));
        if (aligned > base)
            munmap(base, size_t(aligned - base));
        if (aligned + length < base + span)
            munmap(aligned + length, size_t(base + span - (aligned + length)));
        base = aligned;
        (void)madvise(base, length, MADV_HUGEPAGE); // a hint: huge pages may be off
    }
    // committed here, by this thread (registration would fault the pages in one at a time)
    for (size_t o = 0; o < length; o += kPage)
        static_cast<volatile uint8_t *>(base)[o] = 0;
    const cudaError_t e = cudaHostRegister(base, length, mapped ? cudaHostRegisterMapped : cudaHostRegisterDefault);
    if (e != cudaSuccess) {
        cudaGetLastError();
        munmap(base, length);
        return e;
    }
    PinnedHeader h{kMagic, base + kPage, length};
    std::memcpy(base, &h, sizeof h);
    *out = base + kPage;
    return cudaSuccess;
#else
    return mapped ? cudaHostAlloc(out, n ? n : 1, cudaHostAllocMapped) : cudaMallocHost(out, n ? n : 1);
#endif
}

cudaError_t gpu_pinned_free(void *p)
{
    if (!p)
        return cudaSuccess;
#ifdef __linux__
    // only memory of gpu_pinned_alloc: its header page, registered with it, lies just before
    uint8_t *base = static_cast<uint8_t *>(p) - kPage;
    if (!gpu_is_pinned(base))
        return cudaErrorInvalidValue;
    PinnedHeader h;
    std::memcpy(&h, base, sizeof h);
    if (h.magic != kMagic || h.user != p)
        return cudaErrorInvalidValue;
    const cudaError_t e = cudaHostUnregister(base);
    if (e != cudaSuccess)
        cudaGetLastError();
    munmap(base, h.length);
    return e;
#else
    return cudaFreeHost(p);
#endif
}
