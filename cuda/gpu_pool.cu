// gpu_pool.cu - a handle's device memory: a stream-ordered pool (see DevicePool in gpu_context.h).
#include "gpu_context.h"

#include <cstdint>

bool DevicePool::create(int device)
{
    int supported = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
    if (!supported)
        return false;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    // What a buffer gives back stays for the handle's next growth instead of going back to the
    // driver at each synchronisation.
    uint64_t keep = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    // Only memory whose free has completed is handed out again: then an allocation needs no
    // ordering after the frees, on any stream (the other two reuses order it after them on the
    // allocating stream alone).
    int off = 0;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &off));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
    CUDA_CHECK(cudaStreamCreateWithFlags(&alloc, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&retire, cudaStreamNonBlocking));
    return true;
}

void DevicePool::add_user(cudaStream_t s)
{
    for (cudaStream_t u : users)
        if (u == s)
            return;
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    users.push_back(s);
    passed.push_back(e);
}

void *DevicePool::alloc_bytes(size_t n)
{
    void *p = nullptr;
    cudaError_t st = cudaMallocFromPoolAsync(&p, n, pool, alloc);
    if (st == cudaErrorMemoryAllocation) {
        // The handle's frees still in flight and what the pool keeps: back to the driver, then
        // once more.
        cudaGetLastError();
        CUDA_CHECK(cudaStreamSynchronize(retire));
        CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
        st = cudaMallocFromPoolAsync(&p, n, pool, alloc);
    }
    CUDA_CHECK(st);
    // Waits for this stream alone, which holds nothing but allocations: from here the buffer is
    // valid on every stream.
    CUDA_CHECK(cudaStreamSynchronize(alloc));
    return p;
}

void DevicePool::free_bytes(void *p)
{
    if (!closing) // after what each stream of the handle has been given so far
        for (size_t k = 0; k < users.size(); k++)
            if (cudaEventRecord(passed[k], users[k]) != cudaSuccess ||
                cudaStreamWaitEvent(retire, passed[k], 0) != cudaSuccess) {
                cudaGetLastError();
                return; // not ordered after its users: kept until the pool goes
            }
    if (cudaFreeAsync(p, retire) != cudaSuccess)
        cudaGetLastError();
}

size_t DevicePool::idle_bytes() const
{
    if (!pool)
        return 0;
    uint64_t reserved = 0, used = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return reserved > used ? size_t(reserved - used) : 0;
}

void DevicePool::destroy()
{
    if (retire)
        cudaStreamSynchronize(retire);
    if (pool)
        cudaMemPoolDestroy(pool);
    for (cudaEvent_t e : passed)
        cudaEventDestroy(e);
    for (cudaStream_t s : {alloc, retire})
        if (s)
            cudaStreamDestroy(s);
    *this = DevicePool{};
}
