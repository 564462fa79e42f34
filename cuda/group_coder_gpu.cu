// group_coder_gpu.cu - element and group coding on the GPU, the twin of codec/src/group_coder.c;
// also the baseline bit strings of profile 1's raw-mode groups (group_coder_ec_encode_gpu.cu codes
// the range-coded ones).
// Encode: a warp per group sums its element code lengths; an exclusive scan of the record sizes
// places every group; then a block per group writes its record: each thread codes a few
// consecutive elements, a block scan gives each thread its bit offset, the bits are OR-ed into a
// shared-memory word buffer and copied out as bytes (long groups in chunks, carrying the partial
// byte). Decode: a block per plane walks the length words to locate the groups, then, level by
// level from the top, a thread per group decodes its elements (parents first).
#include "gpu_block_bits.h"
#include "gpu_check.h"
#include "gpu_groups.h"
#include "gpu_kernels.h"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

namespace {


__device__ inline int reference(const GpuBand &b, const GpuBand *bands, const int8_t *i8, int qmax,
                                uint32_t x, uint32_t y)
{
    if (b.parent < 0)
        return qmax;
    const GpuBand &pb = bands[b.parent];
    return i8[pb.mqd + uint64_t(x / 2) * pb.mcols + y / 2];
}

// A warp per group: its baseline bit count; for the entropy profile (counts given) also its bins
// and raw bits (ec_group_coder.h), which place its bins in the arena (group_coder_ec_binarise_gpu.cu),
// and each element's two counts (bins in the low byte, raw bits in the high) at its MQD's index,
// so that the binariser finds its offsets without coding its elements twice. A lane takes a column
// of the group, in every (32 / lanes_per_row)-th row.
__global__ void group_sizes(const GpuBand *bands, uint32_t band_count, const GpuPlane *planes,
                            const GpuPlaneState *state, const int32_t *__restrict__ i32,
                            const int8_t *__restrict__ i8, GpuGroup *groups, uint64_t *sizes,
                            uint2 *counts, uint64_t *bin_at, uint16_t *__restrict__ element_counts,
                            uint64_t n)
{
    const uint64_t g = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x & 31;
    if (g >= n)
        return;
    const uint32_t bi = find_band(bands, band_count, g);
    const GpuBand b = bands[bi];
    const GpuPlane p = planes[b.plane];
    const int qmax = state[b.plane].qmax, low = int(state[b.plane].low);
    const int exact = bi == p.band_first || b.level == 1;
    const GroupPos q = group_pos(b, p, g);
    uint32_t bits = 0, bins = 0, raw = 0;
    const uint32_t w = lanes_per_row(q.vc), rows = 32 / w;
    for (uint32_t y = q.gy + lane % w; y < q.gy + q.vc; y += w) {
#pragma unroll 1 // unrolled, its registers cost more warps than the rows' loads gain
        for (uint32_t x = q.gx + lane / w; x < q.gx + q.vr; x += rows) {
            const uint64_t at = b.mqd + uint64_t(x) * b.mcols + y;
            const int r = reference(b, bands, i8, qmax, x, y), m = i8[at];
            bits += pcwt_element_bits(r, m);
            if (counts) {
                const int32_t *c0 = i32 + b.coef + uint64_t(2 * x) * b.cols + 2 * y;
                const int32_t c[4] = {c0[0], c0[1], c0[b.cols], c0[b.cols + 1]};
                uint32_t nb, nr;
                pcwt_ec_element_counts(r, m, c, exact, low, &nb, &nr);
                bins += nb;
                raw += nr;
                element_counts[at] = uint16_t(nb | nr << 8); // PCWT_EC_ELEMENT_BINS, 4 * 29 < 256
            }
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        bits += __shfl_xor_sync(0xffffffffu, bits, off);
        bins += __shfl_xor_sync(0xffffffffu, bins, off);
        raw += __shfl_xor_sync(0xffffffffu, raw, off);
    }
    if (lane == 0) {
        GpuGroup &out = groups[g];
        out.bits = bits;
        out.bytes = 4 + (bits + 7) / 8;
        out.head = 4;
        out.entropy = 0;
        sizes[g] = out.bytes; // profile 1: the scratch of its coder, from the scan of these
        if (counts) {
            counts[g] = make_uint2(bins, raw);
            bin_at[g] = (uint64_t(bins) + 15) & ~uint64_t(15); // 16-byte runs: the coder's loads
        }
    }
}

__global__ void group_offsets(const GpuBand *bands, uint32_t band_count, const GpuPlane *planes,
                              const GpuFrame *frames, const uint64_t *scan, const uint64_t *map_prefix,
                              GpuGroup *groups, uint64_t n)
{
    const uint64_t g = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    const GpuBand &b = bands[find_band(bands, band_count, g)];
    // the value maps (compact profile) of the planes up to this one come first
    groups[g].offset = scan[g] + frames[planes[b.plane].frame].hdr_prefix + (map_prefix ? map_prefix[b.plane] : 0);
}

constexpr int ENC_THREADS = 256, ENC_EPT = 4, ENC_CHUNK = ENC_THREADS * ENC_EPT;
constexpr int ENC_MAX_BITS = 31 + 4 * 32; // an element with r <= 30
constexpr int ENC_WORDS = ENC_CHUNK * ENC_MAX_BITS / 32 + 2;

__global__ void __launch_bounds__(ENC_THREADS) group_encode(
    const GpuBand *bands, uint32_t band_count, const GpuPlane *planes, const GpuPlaneState *state,
    const GpuGroup *groups, const int32_t *i32, const int8_t *i8, uint8_t *stream)
{
    using Scan = cub::BlockScan<uint32_t, ENC_THREADS>;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ uint32_t words[ENC_WORDS];
    __shared__ uint32_t chunk_total;

    const uint64_t g = blockIdx.x;
    const GpuGroup grp = groups[g];
    if (grp.entropy) // a range-coded record of profile 1 (group_coder_ec_encode_gpu.cu): most
        return;      // of them, so the block leaves before it reads anything else
    const GpuBand b = bands[find_band(bands, band_count, g)];
    const GpuPlane p = planes[b.plane];
    const int qmax = state[b.plane].qmax;
    const GroupPos q = group_pos(b, p, g);
    uint8_t *out = stream + grp.offset;
    if (threadIdx.x == 0) {
        if (p.profile == PCWT_PROFILE_ENTROPY) { // a raw-mode record
            const pcwt_ec_record rec = gpu_group_record(grp);
            pcwt_ec_record_put_head(out, &rec);
        } else
            for (int k = 0; k < 4; k++)
                out[k] = uint8_t(grp.bits >> (8 * k));
    }
    uint8_t *dst = out + grp.head;

    const uint32_t ne = q.vr * q.vc;
    BlockBits out_bits;
    for (uint32_t first = 0; first < ne; first += ENC_CHUNK) {
        for (uint32_t k = threadIdx.x; k < ENC_WORDS; k += ENC_THREADS)
            words[k] = 0;
        // This thread's elements: their references, MQDs and total bits.
        int r[ENC_EPT], m[ENC_EPT];
        uint32_t x[ENC_EPT], y[ENC_EPT], bits = 0;
#pragma unroll
        for (int k = 0; k < ENC_EPT; k++) {
            const uint32_t e = first + threadIdx.x * ENC_EPT + k;
            m[k] = -2;
            if (e < ne) {
                x[k] = q.gx + e / q.vc;
                y[k] = q.gy + e % q.vc;
                r[k] = reference(b, bands, i8, qmax, x[k], y[k]);
                m[k] = i8[b.mqd + uint64_t(x[k]) * b.mcols + y[k]];
                bits += pcwt_element_bits(r[k], m[k]);
            }
        }
        uint32_t pos, total;
        Scan(scan_tmp).ExclusiveSum(bits, pos, total);
        if (threadIdx.x == 0)
            chunk_total = total;
        __syncthreads(); // words zeroed, chunk_total visible
        out_bits.start(words);
        pos += out_bits.carry_bits;
#pragma unroll
        for (int k = 0; k < ENC_EPT; k++) {
            if (m[k] == -2)
                continue;
            if (m[k] < 0) {
                pos += uint32_t(r[k] + 1); // r + 1 zero bits
                continue;
            }
            const uint32_t lead = uint32_t(r[k] - m[k] + 1);
            put_bits(words, pos, 1u, lead);
            pos += lead;
            const uint32_t nb = uint32_t(m[k]) + 2;
            const int32_t *c0 = i32 + b.coef + uint64_t(2 * x[k]) * b.cols + 2 * y[k];
            const int32_t c[4] = {c0[0], c0[1], c0[b.cols], c0[b.cols + 1]};
#pragma unroll
            for (int t = 0; t < 4; t++) {
                put_bits(words, pos, (pcwt_magnitude(c[t]) << 1) | uint32_t(c[t] > 0), nb);
                pos += nb;
            }
        }
        __syncthreads();
        out_bits.flush(words, chunk_total, dst);
        __syncthreads(); // before the next chunk clears the buffer
    }
    out_bits.finish(dst);
}

// The second warp of a walk's block: the payload's lines loaded into L1 up to WALK_AHEAD bytes
// ahead of the walk (*at: where it is), so that each record's header is there when the walk
// reaches it instead of a memory latency away.
constexpr uint64_t WALK_AHEAD = 64u << 10;
__device__ void walk_ahead(const uint8_t *stream, uint64_t from, uint64_t end, const volatile uint64_t *at,
                           const volatile int *done, volatile uint32_t *sink)
{
    const uint32_t lane = threadIdx.x & 31;
    uint64_t line = (from & ~uint64_t(127)) + 128u * lane; // lane k: every 32nd line from the k-th
    uint32_t acc = 0;
    while (!*done && line < end) {
        const uint64_t until = *at + WALK_AHEAD;
        for (int k = 0; k < 4 && line < end && line < until; k++, line += 32u * 128u)
            acc += __ldg(reinterpret_cast<const unsigned int *>(stream + line));
        if (line >= until)
            __nanosleep(256);
    }
    if (acc == 0x9E3779B9u) // keeps the loads
        *sink = acc;
}

// Decode: locate every group of a plane by walking its length words or LEB128 headers (a block
// per plane: its first thread walks, its second warp loads ahead). When a record
// runs past the payload, it and the groups after it are left empty (no bytes), so that the CRC
// kernels read nothing outside the payload; the plane is flagged.
__global__ void group_walk(const GpuPlane *planes, uint32_t count, GpuPlaneState *state,
                           const uint8_t *stream, GpuGroup *groups)
{
    __shared__ volatile uint64_t s_at;
    __shared__ volatile int s_done;
    __shared__ volatile uint32_t s_sink;
    const uint32_t pi = blockIdx.x;
    if (pi >= count)
        return;
    const GpuPlane p = planes[pi];
    uint64_t pos = p.payload_off + (payload_prefixed(p) ? state[pi].map_len : 0); // the groups follow r0, the map
    const uint64_t end = p.payload_off + p.payload_len;
    if (threadIdx.x == 0) {
        s_at = pos;
        s_done = 0;
    }
    __syncthreads();
    if (threadIdx.x >= 32) {
        walk_ahead(stream, pos, end, &s_at, &s_done, &s_sink);
        return;
    }
    if (threadIdx.x)
        return;
    bool bad = payload_prefixed(p) && state[pi].map_refused; // its groups left empty, its error after the CRC's
    for (uint64_t g = p.group_first; g < p.group_first + p.group_count; g++) {
        s_at = pos;
        GpuGroup grp{};
        grp.offset = pos;
        if (!bad && p.profile == PCWT_PROFILE_ENTROPY) {
            pcwt_ec_record rec;
            bad = pcwt_ec_record_read(stream + pos, size_t(end - pos), &rec) != PCWT_EC_RECORD_OK;
            if (!bad)
                gpu_group_set_record(grp, rec);
        } else if (!bad) {
            bad = end - pos < 4;
            if (!bad) {
                const uint8_t *s = stream + pos;
                grp.bits = uint32_t(s[0]) | uint32_t(s[1]) << 8 | uint32_t(s[2]) << 16 |
                           uint32_t(s[3]) << 24;
                const uint64_t nbytes = (uint64_t(grp.bits) + 7) / 8;
                bad = nbytes > end - pos - 4;
                grp.head = 4;
                grp.entropy = 0;
                grp.bytes = uint32_t(4 + nbytes);
            }
        }
        if (bad) {
            grp = GpuGroup{};
            grp.offset = pos;
        }
        groups[g] = grp;
        pos += grp.bytes;
    }
    s_done = 1;
    if (payload_prefixed(p) && state[pi].map_refused)
        return;
    if (bad)
        state[pi].error = GPU_ERR_GROUP_BOUNDS;
    else if (pos != end)
        state[pi].error = GPU_ERR_TRAILING;
}

// Big-endian 32-bit word of the stream starting at a 4-byte-aligned address.
__device__ inline uint32_t be_word(const uint8_t *p4)
{
    return __byte_perm(*reinterpret_cast<const uint32_t *>(p4), 0, 0x0123);
}

// n (1..32) bits at bit position pos of the bit string starting at byte `base`. Reads aligned
// words, possibly up to 7 bytes past the group: the stream buffer has slack for that.
__device__ inline uint32_t bits_at(const uint8_t *base, uint64_t pos, uint32_t n)
{
    const uint64_t a = uint64_t(reinterpret_cast<uintptr_t>(base)) * 8 + pos; // absolute bit
    const uint8_t *w = reinterpret_cast<const uint8_t *>(uintptr_t((a >> 5) << 2));
    const uint32_t s = uint32_t(a & 31);
    const uint64_t v = uint64_t(be_word(w)) << 32 | be_word(w + 4);
    return uint32_t((v << s) >> (64 - n));
}

// Serial reader of MQD codes (lane 0): a 64-bit window refilled from aligned words.
struct HeaderReader {
    const uint8_t *base;
    uint64_t pos; // bits consumed
    __device__ uint32_t zeros_upto(uint32_t limit) // leading zeros in the next limit+1 <= 32 bits
    {
        const uint32_t v = bits_at(base, pos, limit + 1);
        return v ? uint32_t(__clz(v)) - (31 - limit) : limit + 1;
    }
};

constexpr int DEC_WARPS = 4, DEC_CHUNK = 512;

// A warp per group: lanes fetch the references of a chunk of elements, lane 0 walks the MQD codes
// (recording where each element's coefficients start), then all lanes extract the coefficients.
__global__ void __launch_bounds__(DEC_WARPS * 32) group_decode(
    const uint32_t *band_ids, const GpuBand *bands, const GpuPlane *planes, GpuPlaneState *state,
    const GpuGroup *groups, const uint8_t *__restrict__ stream, int32_t *__restrict__ i32,
    int8_t *__restrict__ i8, const uint32_t *only_if_raw)
{
    __shared__ uint32_t s_off[DEC_WARPS][DEC_CHUNK];
    if (only_if_raw && !*only_if_raw)
        return; // no raw-mode record in the batch
    __shared__ int8_t s_r[DEC_WARPS][DEC_CHUNK];
    __shared__ int8_t s_m[DEC_WARPS][DEC_CHUNK];
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const GpuBand b = bands[band_ids[blockIdx.y]];
    const uint32_t k = blockIdx.x * DEC_WARPS + warp;
    if (k >= b.group_count || state[b.plane].error)
        return; // whole warps leave together; a plane that failed its checks is not decoded
    const uint64_t g = b.group_first + k;
    const GpuGroup grp = groups[g];
    if (grp.entropy)
        return; // group_coder_ec_decode_gpu.cu decodes it
    const GpuPlane p = planes[b.plane];
    const GroupPos q = group_pos(b, p, g);
    const uint8_t *base = stream + grp.offset + grp.head;
    uint32_t *off = s_off[warp];
    int8_t *rr = s_r[warp], *mm = s_m[warp];
    const uint32_t ne = q.vr * q.vc;
    // no children (LL, level 1): an MQD must be its element's own largest level (FORMAT.md Sec.
    // 4.1); check_parent_mqds checks the others once their children are decoded
    const bool leaf = band_ids[blockIdx.y] == p.band_first || b.level == 1;
    uint64_t pos = 0; // bits parsed so far (the same in every lane after each chunk)
    uint32_t err = 0;
    int top = -1;
    for (uint32_t first = 0; first < ne && !err; first += DEC_CHUNK) {
        const uint32_t n = min(uint32_t(DEC_CHUNK), ne - first);
        for (uint32_t e = lane; e < n; e += 32) {
            const uint32_t x = q.gx + (first + e) / q.vc, y = q.gy + (first + e) % q.vc;
            rr[e] = int8_t(reference(b, bands, i8, p.qmax, x, y));
        }
        __syncwarp();
        uint64_t end = pos;
        if (lane == 0) {
            HeaderReader h{base, pos};
            for (uint32_t e = 0; e < n; e++) {
                const int r = rr[e];
                int m = -1;
                if (r >= 0) {
                    const uint32_t z = h.zeros_upto(uint32_t(r));
                    if (z > uint32_t(r)) {
                        h.pos += uint32_t(r) + 1;
                    } else {
                        h.pos += z + 1;
                        m = r - int(z);
                    }
                }
                off[e] = uint32_t(h.pos - pos);
                mm[e] = int8_t(m);
                if (m >= 0)
                    h.pos += 4u * uint32_t(m + 2);
                if (h.pos > grp.bits) { // damaged: stop before wandering past the group
                    err = GPU_ERR_GROUP_BITS;
                    for (uint32_t t = e + 1; t < n; t++)
                        mm[t] = -1;
                    break;
                }
            }
            end = h.pos;
        }
        __syncwarp();
        end = __shfl_sync(0xffffffffu, end, 0);
        err = __shfl_sync(0xffffffffu, err, 0);
        for (uint32_t e = lane; e < n; e += 32) {
            const uint32_t x = q.gx + (first + e) / q.vc, y = q.gy + (first + e) % q.vc;
            const int m = mm[e];
            int32_t c[4] = {0, 0, 0, 0};
            if (m >= 0) {
                const uint32_t nb = uint32_t(m) + 2;
                uint64_t at = pos + off[e];
                for (int t = 0; t < 4; t++, at += nb) {
                    const uint32_t v = bits_at(base, at, nb);
                    const uint32_t a = v >> 1;
                    c[t] = (v & 1u) ? int32_t(a) : -int32_t(a);
                    if (v == 1u)
                        err = GPU_ERR_NEG_ZERO;
                }
                if (leaf && !err && !pcwt_element_reaches(c, m))
                    err = GPU_ERR_MQD;
            }
            i8[b.mqd + uint64_t(x) * b.mcols + y] = int8_t(m);
            top = max(top, m);
            int32_t *c0 = i32 + b.coef + uint64_t(2 * x) * b.cols + 2 * y;
            c0[0] = c[0];
            c0[1] = c[1];
            c0[b.cols] = c[2];
            c0[b.cols + 1] = c[3];
        }
        // the lanes' errors alike, so that all leave the loop together
        for (int o = 16; o > 0; o >>= 1)
            err = max(err, __shfl_xor_sync(0xffffffffu, err, o));
        __syncwarp(); // the shared arrays are rewritten by the next chunk
        pos = end;
    }
    // Elements of a damaged group past the stop keep whatever was decoded; the error fails it.
    if (!err && pos != grp.bits)
        err = GPU_ERR_GROUP_BITS;
    // Profile 1 also wants the padding bits of a raw-mode record to be 0 (as its CPU decoder).
    if (!err && p.profile == PCWT_PROFILE_ENTROPY && (grp.bits & 7u) &&
        bits_at(base, grp.bits, 8 - (grp.bits & 7u)) != 0)
        err = GPU_ERR_GROUP_BITS;
    for (int o = 16; o > 0; o >>= 1)
        top = max(top, __shfl_xor_sync(0xffffffffu, top, o));
    if (lane == 0) {
        if (err)
            atomicCAS(&state[b.plane].error, 0u, err);
        if (b.parent < 0 && top >= 0)
            atomicMax(&state[b.plane].qmax, top);
    }
}

// A thread per element of a band with children (LL and level 1 have none and leave), once the
// children are decoded: its MQD must be the largest of its children's MQDs and its own level
// (FORMAT.md Sec. 4.1); the coefficients are read only where no child reaches it.
__global__ void check_parent_mqds(const uint32_t *band_ids, const GpuBand *bands,
                                  const GpuPlane *planes, GpuPlaneState *state,
                                  const int32_t *__restrict__ i32, const int8_t *__restrict__ i8)
{
    const uint32_t bi = band_ids[blockIdx.y];
    const GpuBand b = bands[bi];
    const uint64_t e = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b.level < 2 || bi == planes[b.plane].band_first || e >= uint64_t(b.mrows) * b.mcols)
        return;
    const int m = i8[b.mqd + e];
    if (m < 0)
        return; // its children are -1 and its coefficients 0, by the codes
    const GpuBand &c = bands[bi + 3];
    const uint32_t x = uint32_t(e / b.mcols), y = uint32_t(e % b.mcols);
    int top = -1; // children outside the finer band (lazy even padding) do not count
    for (uint32_t xx = 2 * x; xx < 2 * x + 2 && xx < c.mrows; xx++)
        for (uint32_t yy = 2 * y; yy < 2 * y + 2 && yy < c.mcols; yy++)
            top = max(top, int(i8[c.mqd + uint64_t(xx) * c.mcols + yy]));
    if (top == m)
        return;
    const int32_t *c0 = i32 + b.coef + uint64_t(2 * x) * b.cols + 2 * y;
    const int32_t v[4] = {c0[0], c0[1], c0[b.cols], c0[b.cols + 1]};
    if (top > m || !pcwt_element_reaches(v, m))
        atomicCAS(&state[b.plane].error, 0u, uint32_t(GPU_ERR_MQD));
}

__global__ void check_qmax(const GpuPlane *planes, uint32_t count, GpuPlaneState *state)
{
    const uint32_t pi = blockIdx.x * blockDim.x + threadIdx.x;
    if (pi < count && state[pi].qmax != planes[pi].qmax)
        atomicCAS(&state[pi].error, 0u, uint32_t(GPU_ERR_QMAX));
}

} // namespace

void gpu_group_sizes(const DeviceBatch &b, uint64_t groups, uint32_t band_count, bool entropy,
                     cudaStream_t s)
{
    group_sizes<<<gpu_blocks(groups * 32, 256), 256, 0, s>>>(
        b.bands, band_count, b.planes, b.state, b.i32, b.i8, b.groups, b.group_size,
        entropy ? b.ec_counts : nullptr, entropy ? b.ec_bin_at : nullptr, b.ec_element_counts,
        groups);
    CUDA_CHECK_LAUNCH();
}

size_t gpu_scan_tmp_size(uint64_t groups)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<uint64_t *>(nullptr),
                                             static_cast<uint64_t *>(nullptr), groups));
    return bytes;
}

void gpu_scan_group_sizes(const DeviceBatch &b, uint64_t groups, void *tmp, size_t tmp_size,
                          cudaStream_t s)
{
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_size, b.group_size, b.group_size, groups, s));
}

void gpu_group_offsets(const DeviceBatch &b, uint64_t groups, uint32_t band_count, void *tmp,
                       size_t tmp_size, cudaStream_t s)
{
    gpu_scan_group_sizes(b, groups, tmp, tmp_size, s); // in place: record sizes to positions
    group_offsets<<<gpu_blocks(groups, 256), 256, 0, s>>>(b.bands, band_count, b.planes, b.frames,
                                                      b.group_size, b.map_prefix, b.groups, groups);
    CUDA_CHECK_LAUNCH();
}

void gpu_group_encode(const DeviceBatch &b, uint64_t groups, uint32_t band_count, cudaStream_t s)
{
    if (!groups)
        return;
    group_encode<<<uint32_t(groups), ENC_THREADS, 0, s>>>(b.bands, band_count, b.planes, b.state,
                                                          b.groups, b.i32, b.i8, b.stream);
    CUDA_CHECK_LAUNCH();
}

void gpu_group_walk(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    if (!plane_count)
        return;
    group_walk<<<plane_count, 64, 0, s>>>(b.planes, plane_count, b.state, b.stream, b.groups);
    CUDA_CHECK_LAUNCH();
}

void gpu_group_decode(const DeviceBatch &b, const uint32_t *dev_bands, uint32_t band_count,
                      uint32_t max_groups, cudaStream_t s, const uint32_t *only_if_raw)
{
    gpu_for_entries(band_count, [&](uint32_t first, uint32_t n) {
        group_decode<<<dim3(gpu_blocks(max_groups, DEC_WARPS), n), DEC_WARPS * 32, 0, s>>>(
            dev_bands + first, b.bands, b.planes, b.state, b.groups, b.stream, b.i32, b.i8, only_if_raw);
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_check_parent_mqds(const DeviceBatch &b, const uint32_t *dev_bands, uint32_t band_count,
                           uint64_t max_elements, cudaStream_t s)
{
    if (!max_elements)
        return;
    gpu_for_entries(band_count, [&](uint32_t first, uint32_t n) {
        check_parent_mqds<<<dim3(gpu_blocks(max_elements, 256), n), 256, 0, s>>>(
            dev_bands + first, b.bands, b.planes, b.state, b.i32, b.i8);
        CUDA_CHECK_LAUNCH();
    });
}

void gpu_check_qmax(const DeviceBatch &b, uint32_t plane_count, cudaStream_t s)
{
    check_qmax<<<gpu_blocks(plane_count, 128), 128, 0, s>>>(b.planes, plane_count, b.state);
    CUDA_CHECK_LAUNCH();
}
