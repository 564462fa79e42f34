// jpegls_lines_gpu.cu - stage 1 of the GPU JPEG-LS encoder (see jpegls_gpu.h): a warp per line.
// Context, prediction and run detection depend only on original samples in lossless mode, so
// every line is independent. Within a line, the sequential encoder's automaton (regular sample,
// or a run of samples equal to Ra ended by an interruption sample or the end of the line) is
// walked 32 samples at a time on ballot masks: Z marks samples whose context is 0 (a run starts
// there when one is due), E samples equal to their left neighbour (a run goes on through them).
// The same walk runs twice: once to count records per line, once (after a prefix sum) to write
// them at their places in raster order.
#include "gpu_check.h"
#include "jpegls_gpu.h"

#include <cub/cub.cuh>

namespace {

__device__ inline uint32_t word_at(const uint8_t *p, uint32_t word_bytes)
{
    return word_bytes == 1 ? *p : *reinterpret_cast<const uint16_t *>(p);
}

struct LineView {
    const uint8_t *base; // sample (row, 0) of the segment
    uint32_t word_bytes, mask;
    uint64_t col_bytes, row_bytes;
    __device__ int32_t at(int32_t row, uint32_t col) const
    {
        return (int32_t)(word_at(base + (int64_t)row * (int64_t)row_bytes + col * col_bytes,
                                 word_bytes) &
                         mask);
    }
};

__device__ inline int32_t quantize(int32_t d, const JlsParams &p)
{
    if (d <= -p.t3) return -4;
    if (d <= -p.t2) return -3;
    if (d <= -p.t1) return -2;
    if (d < 0) return -1;
    if (d == 0) return 0;
    if (d < p.t1) return 1;
    if (d < p.t2) return 2;
    if (d < p.t3) return 3;
    return 4;
}

__device__ inline int32_t med(int32_t ra, int32_t rb, int32_t rc)
{
    const int32_t mx = ra > rb ? ra : rb, mn = ra > rb ? rb : ra;
    return rc >= mx ? mn : (rc <= mn ? mx : ra + rb - rc);
}

// Bits a .. b-1 (0 <= a <= b <= 32).
__device__ inline uint32_t bit_range(uint32_t a, uint32_t b)
{
    const uint32_t n = b - a;
    return n >= 32 ? ~0u : ((1u << n) - 1u) << a;
}

template <bool Emit> __global__ void k_lines(JlsDev d)
{
    const uint32_t line = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const uint32_t lane = threadIdx.x & 31u;
    if (line >= d.line_count)
        return;
    const JlsSeg &sg = d.segs[d.line_seg[line]];
    const uint32_t w = sg.width, bits = sg.bits;
    const int32_t r = (int32_t)(line - sg.line_first);
    const JlsParams p = jls_gpu_params(bits);
    LineView v{d.samples + sg.first, sg.word_bytes, (1u << bits) - 1u,
               (uint64_t)sg.step * sg.word_bytes, (uint64_t)sg.row_words * sg.word_bytes};
    // Borders (T.87 A.2.1): the line above the first is zero; Ra at column 0 is Rb; Rc at column 0
    // is the sample two lines up; Rd at the last column is Rb.
    const int32_t prev0 = r >= 1 ? v.at(r - 1, 0) : 0;
    const int32_t rc0 = r >= 2 ? v.at(r - 2, 0) : 0;

    uint64_t ctx_base = 0, run_base = 0;
    if (Emit) {
        ctx_base = d.line_counts[line] >> 32;
        run_base = d.line_counts[line] & 0xFFFFFFFFu;
    }
    // bit 30 of a run's length marks its segment's first run (RUNindex starts again at 0)
    const auto seg_start = [&](uint64_t run) { return run == sg.run_first ? 0x40000000u : 0u; };
    uint32_t ctx_n = 0, run_n = 0; // records of this line so far
    uint32_t pos = 0;              // next token start
    bool in_run = false;
    uint32_t run_start = 0;
    bool high = false;
    const uint32_t high_shift = bits;
    const uint32_t high_all = (1u << (sg.alloc_bits - bits)) - 1u;

    for (uint32_t base = 0; base < w; base += 32) {
        const uint32_t x = base + lane;
        const bool valid = x < w;
        int32_t ix = 0, ra = 0, rb = 0, qs = 1;
        if (valid) {
            const uint32_t raw =
                word_at(v.base + (int64_t)r * (int64_t)v.row_bytes + x * v.col_bytes, v.word_bytes);
            if (!Emit && bits < sg.alloc_bits) {
                const uint32_t hi = raw >> high_shift;
                const uint32_t want = (sg.is_signed && ((raw >> (bits - 1)) & 1u)) ? high_all : 0u;
                high |= hi != want;
            }
            ix = (int32_t)(raw & v.mask);
            rb = r >= 1 ? v.at(r - 1, x) : 0;
            ra = x > 0 ? v.at(r, x - 1) : prev0;
            const int32_t rc = x > 0 ? (r >= 1 ? v.at(r - 1, x - 1) : 0) : rc0;
            const int32_t rd = x + 1 < w ? (r >= 1 ? v.at(r - 1, x + 1) : 0) : rb;
            qs = (quantize(rd - rb, p) * 9 + quantize(rb - rc, p)) * 9 + quantize(rc - ra, p);
        }
        const uint32_t vmask = __ballot_sync(~0u, valid);
        const uint32_t zmask = __ballot_sync(~0u, valid && qs == 0);
        const uint32_t emask = __ballot_sync(~0u, valid && ix == ra);
        uint32_t regm = 0, intm = 0, endm = 0;
        const uint32_t run_n0 = run_n;
        // The automaton, warp-uniform.
        for (;;) {
            if (in_run) {
                const uint32_t m = ~emask & vmask & (~0u << (pos - base));
                if (m) {
                    const uint32_t j = base + __ffs(m) - 1;
                    if (Emit && lane == 0) {
                        d.run_len[run_base + run_n] = (j - run_start) | seg_start(run_base + run_n);
                        d.run_attach[run_base + run_n] =
                            (uint32_t)(ctx_base + ctx_n + __popc(regm | intm));
                    }
                    run_n++;
                    intm |= 1u << (j - base);
                    endm |= 1u << (j - base);
                    pos = j + 1;
                    in_run = false;
                } else if (base + 32 >= w) {
                    if (Emit && lane == 0) {
                        d.run_len[run_base + run_n] =
                            (w - run_start) | 0x80000000u | seg_start(run_base + run_n);
                        d.run_attach[run_base + run_n] =
                            (uint32_t)(ctx_base + ctx_n + __popc(regm | intm));
                    }
                    run_n++;
                    pos = w;
                    in_run = false;
                    break;
                } else {
                    pos = base + 32;
                    break;
                }
            } else {
                if (pos >= w || pos >= base + 32)
                    break;
                const uint32_t m = zmask & (~0u << (pos - base));
                if (m) {
                    const uint32_t rs = base + __ffs(m) - 1;
                    regm |= bit_range(pos - base, rs - base);
                    in_run = true;
                    run_start = rs;
                    pos = rs;
                } else {
                    const uint32_t stop = base + 32 < w ? base + 32 : w;
                    regm |= bit_range(pos - base, stop - base);
                    pos = base + 32;
                    break;
                }
            }
        }
        const uint32_t ctxm = regm | intm;
        if (Emit && ((ctxm >> lane) & 1u)) {
            const uint32_t below = (1u << lane) - 1u;
            const uint64_t i = ctx_base + ctx_n + __popc(ctxm & below);
            // runs whose interruption sample is at or before this one
            const uint32_t runs_before =
                (uint32_t)(run_base + run_n0 + __popc(endm & (below | (1u << lane))));
            const uint32_t seg = d.line_seg[line];
            uint32_t slot, px, neg;
            uint64_t extra = 0;
            if ((intm >> lane) & 1u) {
                const uint32_t ritype = ra == rb;
                slot = kJlsRunCtx + ritype;
                px = (uint32_t)(ritype ? ra : rb);
                neg = !ritype && ra > rb;
                extra = (uint64_t)(runs_before - 1u) << 33;
            } else {
                const int32_t rc = x > 0 ? (r >= 1 ? v.at(r - 1, x - 1) : 0) : rc0;
                slot = (uint32_t)(qs < 0 ? -qs : qs) - 1u;
                px = (uint32_t)med(ra, rb, rc);
                neg = qs < 0;
            }
            d.ctx_key[i] = seg * kJlsContexts + slot;
            d.ctx_rec[i] = (uint64_t)(uint32_t)ix | (uint64_t)px << 16 | (uint64_t)neg << 32 | extra;
            d.ctx_runs_before[i] = runs_before;
        }
        ctx_n += __popc(ctxm);
    }
    if (!Emit) {
        if (lane == 0)
            d.line_counts[line] = (uint64_t)ctx_n << 32 | run_n;
        if (__any_sync(~0u, high) && lane == 0)
            atomicOr(&d.frame_flags[sg.frame], 1u);
    }
}

__global__ void k_seg_ranges(JlsDev d)
{
    const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= d.seg_count)
        return;
    JlsSeg &sg = d.segs[s];
    const uint64_t a = d.line_counts[sg.line_first], b = d.line_counts[sg.line_first + sg.rows];
    sg.ctx_first = (uint32_t)(a >> 32);
    sg.ctx_end = (uint32_t)(b >> 32);
    sg.run_first = (uint32_t)a;
    sg.run_end = (uint32_t)b;
}

uint32_t warp_blocks(uint32_t warps) { return (warps + 3) / 4; } // 128 threads per block

} // namespace

void jls_gpu_lines_count(const JlsDev &d, cudaStream_t s)
{
    if (!d.line_count)
        return;
    k_lines<false><<<warp_blocks(d.line_count), 128, 0, s>>>(d);
    CUDA_CHECK_LAUNCH();
}

void jls_gpu_lines_emit(const JlsDev &d, cudaStream_t s)
{
    if (!d.line_count)
        return;
    k_lines<true><<<warp_blocks(d.line_count), 128, 0, s>>>(d);
    CUDA_CHECK_LAUNCH();
}

void jls_gpu_seg_ranges(const JlsDev &d, cudaStream_t s)
{
    k_seg_ranges<<<(d.seg_count + 127) / 128, 128, 0, s>>>(d);
    CUDA_CHECK_LAUNCH();
}
