// compare_gpu.cu - pcwt_verify_batch's comparison on the device: the first byte where each frame's
// decoded samples differ from the samples expected, so that nothing decoded is copied back.
#include "gpu_context.h"

namespace {

constexpr uint32_t kThreads = 256;

// One grid row a frame (of up to 65535 from `first`); its blocks stride over 16-byte words, a
// difference found is narrowed to its byte and the smallest kept (atomicMin).
__global__ void first_difference(const uint8_t *decoded, const uint8_t *expected, const GpuFrame *frames,
                                 uint32_t first, unsigned long long *result)
{
    const uint32_t f = first + blockIdx.y;
    const uint64_t off = frames[f].sample_off, n = frames[f].sample_size; // off: 256-byte aligned
    const uint8_t *a = decoded + off, *b = expected + off;
    const uint64_t words = n / 16, stride = uint64_t(gridDim.x) * blockDim.x;
    const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (uint64_t w = t; w < words; w += stride) {
        const uint4 x = reinterpret_cast<const uint4 *>(a)[w], y = reinterpret_cast<const uint4 *>(b)[w];
        if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) {
            uint64_t i = w * 16;
            while (a[i] == b[i])
                i++;
            atomicMin(&result[f], (unsigned long long)i);
        }
    }
    for (uint64_t i = words * 16 + t; i < n; i += stride)
        if (a[i] != b[i])
            atomicMin(&result[f], (unsigned long long)i);
}

} // namespace

void gpu_first_difference(const uint8_t *decoded, const uint8_t *expected, const GpuFrame *dev_frames,
                          uint32_t count, uint64_t max_size, uint64_t *result, cudaStream_t s)
{
    CUDA_CHECK(cudaMemsetAsync(result, 0xff, sizeof(uint64_t) * count, s)); // none found: UINT64_MAX
    // about 64 KB a block, at most 64 blocks a frame
    const uint32_t blocks = uint32_t(std::min<uint64_t>(64, max_size / (kThreads * 16 * 16) + 1));
    gpu_for_entries(count, [&](uint32_t first, uint32_t n) {
        first_difference<<<dim3(blocks, n), kThreads, 0, s>>>(decoded, expected, dev_frames, first,
                                                              reinterpret_cast<unsigned long long *>(result));
        CUDA_CHECK_LAUNCH();
    });
}
