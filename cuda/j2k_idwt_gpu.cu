// j2k_idwt_gpu.cu - the inverse 5/3 DWT of JPEG 2000 on the GPU, and the output samples. Every
// output sample of a lifting pass is a function of the pass's input (codec/src/j2k_idwt.h's
// rules, the CPU's), so a thread computes one sample: per level, the rows from the coefficients
// into the other buffer, then the columns back, for every tile-component of the chunk at once.
// Then the inverse RCT, DC level shift and clipping (codec/src/j2k_output.h) and the store in
// each frame's sample layout.
#include "gpu_check.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_idwt.h"
#include "j2k_output.h"
#include "samples.h"
}

namespace {

// Sample k of a line of n (n >= 2) whose low-pass values are at in[0..ceil(n/2)) and high-pass
// at in[ceil(n/2)..n), each `step` apart.
__device__ int32_t line_sample(const int32_t *in, size_t step, uint32_t n, uint32_t k)
{
    const uint32_t sn = (n + 1) / 2, dn = n / 2;
    auto s = [&](uint32_t i) { return in[i * step]; };
    auto d = [&](uint32_t i) { return in[(sn + i) * step]; };
    auto even = [&](uint32_t i) { return pcwt_j2k_idwt_even(s(i), d(i ? i - 1 : 0), d(i < dn ? i : dn - 1)); };
    if (!(k & 1))
        return even(k / 2);
    const uint32_t i = k / 2;
    const int32_t left = even(i);
    return pcwt_j2k_idwt_odd(d(i), left, 2 * i + 2 < n ? even(i + 1) : left);
}

// Level step r (1: the coarsest) of every tile-component with at least r levels; rows: from
// coefs into tmp, columns: from tmp back into coefs (the untouched parts stay where they are).
__global__ void idwt_kernel(J2kGpuChunk c, uint32_t r, bool rows)
{
    const J2kGpuTc tc = c.tcs[blockIdx.y];
    if (tc.levels < r)
        return;
    const uint32_t L = tc.levels;
    const uint32_t rw = pcwt_j2k_res_size(tc.width, L - r), rh = pcwt_j2k_res_size(tc.height, L - r);
    const int32_t *src = (rows ? c.coefs : c.tmp) + tc.off;
    int32_t *dst = (rows ? c.tmp : c.coefs) + tc.off;
    const uint64_t n = (uint64_t)rw * rh;
    for (uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t x = (uint32_t)(p % rw), y = (uint32_t)(p / rw);
        int32_t v;
        if (rows)
            v = rw == 1 ? src[(size_t)y * tc.width] : line_sample(src + (size_t)y * tc.width, 1, rw, x);
        else
            v = rh == 1 ? src[x] : line_sample(src + x, tc.width, rh, y);
        dst[(size_t)y * tc.width + x] = v;
    }
}

__global__ void output_kernel(J2kGpuChunk c)
{
    const J2kGpuFrame f = c.frames[blockIdx.y];
    const uint64_t pixels = (uint64_t)f.width * f.height;
    const uint32_t allocated = f.bytes * 8;
    for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < pixels; k += (uint64_t)gridDim.x * blockDim.x) {
        int32_t v[3] = {0, 0, 0};
        for (uint32_t i = 0; i < f.components; i++)
            v[i] = c.coefs[c.tcs[f.tc[i]].off + k];
        if (f.rct && f.components == 3)
            pcwt_j2k_rct_inverse(&v[0], &v[1], &v[2]);
        for (uint32_t i = 0; i < f.components; i++) {
            const uint32_t w = pcwt_sample_canonical(pcwt_j2k_sample(v[i], f.precision, f.is_signed), allocated);
            const uint64_t at = f.out_off + pcwt_sample_index(f.components, f.planar, pixels, i, k) * f.bytes;
            c.out[at] = (uint8_t)w;
            if (f.bytes == 2)
                c.out[at + 1] = (uint8_t)(w >> 8);
        }
    }
}

uint32_t blocks_for(uint64_t n, uint32_t block)
{
    const uint64_t b = (n + block - 1) / block;
    return (uint32_t)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

} // namespace

void j2k_gpu_idwt(const J2kGpuChunk &c, const std::vector<uint64_t> &step_pixels, cudaStream_t s)
{
    const uint32_t block = 256;
    for (uint32_t r = 1; r <= c.max_levels && r <= step_pixels.size(); r++) {
        const dim3 grid(blocks_for(step_pixels[r - 1], block), c.tc_count);
        idwt_kernel<<<grid, block, 0, s>>>(c, r, true);
        CUDA_CHECK_LAUNCH();
        idwt_kernel<<<grid, block, 0, s>>>(c, r, false);
        CUDA_CHECK_LAUNCH();
    }
}

void j2k_gpu_output(const J2kGpuChunk &c, cudaStream_t s)
{
    const uint32_t block = 256;
    const dim3 grid(blocks_for(c.max_frame_pixels, block), c.frame_count);
    output_kernel<<<grid, block, 0, s>>>(c);
    CUDA_CHECK_LAUNCH();
}
