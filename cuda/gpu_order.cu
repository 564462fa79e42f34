// gpu_order.cu - groups listed in decreasing order of their coding work, for the entropy
// profile's range coders: a thread codes a group, and the lanes of a warp wait for its longest
// group, so groups of like length should share a warp. The caller writes (key, id) pairs into
// keys[0] and ids[0] (smaller keys first); one device-wide radix sort orders them in its buffer.
#include "gpu_check.h"
#include "gpu_kernels.h"

#include <cub/device/device_radix_sort.cuh>

namespace {

size_t list_bytes(uint32_t n) { return (size_t(n) * 4 + 255) & ~size_t(255); }

size_t sort_tmp_bytes(uint32_t n)
{
    size_t tmp = 0;
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tmp, k, v, int(n), 0, 32));
    return tmp;
}

} // namespace

size_t gpu_order_bytes(uint32_t n) { return 4 * list_bytes(n) + sort_tmp_bytes(n); }

GpuOrder gpu_order_bufs(void *buf, uint32_t n)
{
    char *const c = static_cast<char *>(buf);
    GpuOrder o;
    for (int i = 0; i < 2; i++) {
        o.keys[i] = reinterpret_cast<uint32_t *>(c + i * list_bytes(n));
        o.ids[i] = reinterpret_cast<uint32_t *>(c + (2 + i) * list_bytes(n));
    }
    o.tmp = c + 4 * list_bytes(n);
    o.tmp_size = sort_tmp_bytes(n);
    return o;
}

const uint32_t *gpu_order_sort(const GpuOrder &o, uint32_t n, int key_bits, cudaStream_t s)
{
    cub::DoubleBuffer<uint32_t> k(o.keys[0], o.keys[1]), v(o.ids[0], o.ids[1]);
    size_t tmp_size = o.tmp_size;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(o.tmp, tmp_size, k, v, int(n), 0, key_bits, s));
    return v.Current();
}
