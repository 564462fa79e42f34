// group_coder_ec_binarise_gpu.cu - the first pass of the entropy profile's GPU encoder: every
// group's bins (ec_group_coder.h, pcwt_ec_element_bins: a byte each, model and bit) and its raw
// stream, found by all the threads of a block at once, so that the range coders
// (group_coder_ec_encode_gpu.cu) then run one loop over stored bins in which the lanes of a warp
// do not diverge. A thread coding its group's elements itself spends most of its warp's issue
// slots on the other lanes' unary runs (bench/results/gpu-h100-2026-11-22-entropy-gpu.md).
//   count:     group_sizes (group_coder_gpu.cu) counts each element's bins and raw bits, and
//              sums them by group;
//   place:     the bin counts, each rounded up to 16 bytes (the coder loads 16 bins at once),
//              give every group its place in the bin arena; a group that does not fit there is
//              coded by the thread-per-group coder instead;
//   binarise:  a block per group, four elements a thread, a block scan of their counts for the
//              offsets; the bins through a shared buffer to the arena (zeros after the last up to
//              16 bytes), the raw bits through gpu_block_bits.h into the group's raw scratch.
#include "gpu_block_bits.h"
#include "gpu_check.h"
#include "group_coder_ec_gpu.h"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

using namespace pcwt_gpu_ec;

namespace {

__device__ inline uint64_t round16(uint64_t n) { return (n + 15) & ~uint64_t(15); }

constexpr int BIN_THREADS = 256, BIN_EPT = 4, BIN_CHUNK = BIN_THREADS * BIN_EPT;
constexpr int BIN_RAW_MAX = 4 * 29; // raw bits of an element, r <= 30
// One shared buffer a block: a chunk's raw bits as words (at most 14.5 KB, in front), then its
// bins, which leave it in runs of consecutive bytes (a thread writing its own bins to global
// memory spreads a warp's byte stores over 32 lines). A chunk whose bins do not fit behind its raw
// words writes them directly. 24 KB (and 40 registers) let six blocks share an SM.
constexpr uint32_t BIN_BUF_WORDS = 6144;
static_assert(BIN_CHUNK * BIN_RAW_MAX / 32 + 2 <= BIN_BUF_WORDS, "the raw words always fit");

__global__ void __launch_bounds__(BIN_THREADS, 6) ec_binarise(
    const GpuBand *bands, uint32_t band_count, const GpuPlane *planes, const GpuPlaneState *state,
    const GpuGroup *groups, const uint64_t *scratch_scan, const uint64_t *bin_at, uint64_t bin_cap,
    const uint16_t *element_counts, int32_t *i32, int8_t *i8, uint8_t *scratch, uint8_t *bins)
{
    using Scan = cub::BlockScan<uint64_t, BIN_THREADS>;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ uint4 buf4[BIN_BUF_WORDS / 4];
    __shared__ uint64_t chunk_total;
    uint32_t *const words = reinterpret_cast<uint32_t *>(buf4);

    const uint64_t g = blockIdx.x;
    if (bin_at[g + 1] > bin_cap)
        return; // past the arena: the thread-per-group coder takes it
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    const GpuPlane p = planes[b.plane];
    const pcwt_ec_band v = ec_view(bands, bi, b, p, state[b.plane].qmax, state[b.plane].low, i32, i8);
    const GroupPos q = group_pos(b, p, g);
    const pcwt_ec_span sp = ec_span(q);
    uint8_t *const sr = ec_raw_stream(scratch, scratch_scan, g, groups[g].bits);
    uint8_t *const out = bins + bin_at[g];
    const uint32_t ne = q.vr * q.vc;
    uint64_t bin_base = 0;
    BlockBits raw_bits;
    for (uint32_t first = 0; first < ne; first += BIN_CHUNK) {
        // this thread's elements: BIN_EPT in raster order from (x0, y0)
        const uint32_t e0 = first + threadIdx.x * BIN_EPT;
        const uint32_t x0 = q.gx + e0 / q.vc, y0 = q.gy + e0 % q.vc;
        uint32_t nb = 0, nr = 0; // from the counts that group_sizes left
        {
            uint32_t x = x0, y = y0;
#pragma unroll
            for (int k = 0; k < BIN_EPT; k++) {
                if (e0 + k < ne) {
                    const uint32_t c = element_counts[b.mqd + uint64_t(x) * b.mcols + y];
                    nb += c & 0xffu;
                    nr += c >> 8;
                }
                if (++y == sp.ye) {
                    y = q.gy;
                    x++;
                }
            }
        }
        // bins in the high half, raw bits in the low: neither sum reaches 2^32 in a chunk
        uint64_t pos, total;
        Scan(scan_tmp).ExclusiveSum(uint64_t(nb) << 32 | nr, pos, total);
        if (threadIdx.x == 0)
            chunk_total = total;
        __syncthreads(); // chunk_total visible
        const uint32_t chunk_bins = uint32_t(chunk_total >> 32);
        const uint32_t raw_words = (raw_bits.carry_bits + uint32_t(chunk_total)) / 32 + 2;
        const uint32_t stage_at = 4 * ((raw_words + 3) & ~3u); // bytes, 16-aligned
        const bool staged = stage_at + chunk_bins <= 4 * BIN_BUF_WORDS;
        uint8_t *const stage = reinterpret_cast<uint8_t *>(buf4) + stage_at;
        for (uint32_t k = threadIdx.x; k < raw_words; k += BIN_THREADS)
            words[k] = 0;
        __syncthreads(); // words zeroed
        raw_bits.start(words);
        uint32_t at = uint32_t(pos >> 32);
        uint32_t rpos = uint32_t(pos) + raw_bits.carry_bits;
        uint32_t x = x0, y = y0;
#pragma unroll 1
        for (int k = 0; k < BIN_EPT && e0 + k < ne; k++) {
            uint32_t rv[4], rn[4];
            // two calls, so that each writes through a pointer of known memory (shared stores
            // instead of generic ones)
            if (staged)
                at += pcwt_ec_element_bins(&v, &sp, x, y, stage + at, rv, rn);
            else
                at += pcwt_ec_element_bins(&v, &sp, x, y, out + bin_base + at, rv, rn);
            for (int c = 0; c < 4; c++) {
                put_bits(words, rpos, rv[c], rn[c]);
                rpos += rn[c];
            }
            if (++y == sp.ye) {
                y = q.gy;
                x++;
            }
        }
        __syncthreads();
        if (staged) {
            uint32_t k = 0;
            if ((bin_base & 15) == 0) { // 16 bytes a thread where the arena is aligned
                const uint4 *from = reinterpret_cast<const uint4 *>(stage);
                uint4 *to = reinterpret_cast<uint4 *>(out + bin_base);
                for (uint32_t w = threadIdx.x; w < chunk_bins / 16; w += BIN_THREADS)
                    to[w] = from[w];
                k = chunk_bins & ~15u;
            }
            for (k += threadIdx.x; k < chunk_bins; k += BIN_THREADS)
                out[bin_base + k] = stage[k];
        }
        bin_base += chunk_bins;
        raw_bits.flush(words, uint32_t(chunk_total), sr);
        __syncthreads(); // before the next chunk scans and clears
    }
    raw_bits.finish(sr);
    // Zeros up to the next 16 bytes: the coder reads the bin after its last one ahead (model 0)
    if (bin_base + threadIdx.x < round16(bin_base))
        out[bin_base + threadIdx.x] = 0;
}

} // namespace

uint64_t gpu_ec_bin_bytes(uint64_t i32_size)
{
    // Six bins a coefficient: CT slices take about five (a bin codes to about 0.85 bits); a
    // noisier image past that has its last groups coded the slow way, not an error.
    return 6 * i32_size;
}

void gpu_ec_place_bins(const DeviceBatch &b, uint64_t groups, void *tmp, size_t tmp_size,
                       cudaStream_t s)
{
    if (!groups)
        return;
    // Scratch positions from the baseline record sizes that group_sizes left in group_size.
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_size, b.group_size, b.ec_scan, groups, s));
    // The bins' places from the counts group_sizes left; the entry after the last: the arena's end.
    CUDA_CHECK(cudaMemsetAsync(b.ec_bin_at + groups, 0, sizeof(uint64_t), s));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_size, b.ec_bin_at, b.ec_bin_at, groups + 1, s));
}

void gpu_ec_binarise(const DeviceBatch &b, uint64_t groups, uint32_t band_count, cudaStream_t s)
{
    if (!groups)
        return;
    ec_binarise<<<uint32_t(groups), BIN_THREADS, 0, s>>>(b.bands, band_count, b.planes, b.state,
                                                        b.groups, b.ec_scan, b.ec_bin_at, b.ec_bin_cap,
                                                        b.ec_element_counts, b.i32, b.i8, b.ec_scratch,
                                                        b.ec_bins);
    CUDA_CHECK_LAUNCH();
}
