// crc32_gpu.cu - the codestream's CRC-32 (zlib/PNG polynomial) on the GPU (the CPU's is zlib's,
// codec/src/container.c; the header writer is container_gpu.cu). Blocks checksum a plane's payload in slices; their CRCs
// are combined with the GF(2) identity crc(A || B) = crc(A) * x^(8 |B|) + crc(B) mod P, so any
// split folds to the same value as the CPU's one pass.
#include "gpu_check.h"
#include "gpu_kernels.h"

namespace {

constexpr uint32_t POLY = 0xEDB88320u; // reflected: x^0 is the top bit

__constant__ uint32_t c_x2n[32];       // x^(2^k) mod P
__device__ uint32_t d_table[4][256]; // [0]: the bytewise table; [k]: k more zero bytes after it

// Product of two polynomials mod P, in the reflected representation.
__host__ __device__ inline uint32_t mul_mod(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (uint32_t bit = 0x80000000u; bit; bit >>= 1) {
        if (a & bit)
            product ^= b;
        b = (b & 1u) ? (b >> 1) ^ POLY : b >> 1; // b *= x
    }
    return product;
}

// x^(8 n) mod P.
__device__ inline uint32_t x_pow_8n(uint64_t n)
{
    uint32_t p = 0x80000000u; // 1
    for (uint32_t k = 3; n; n >>= 1, k++)
        if (n & 1u)
            p = mul_mod(c_x2n[k & 31], p);
    return p;
}

__device__ inline uint32_t crc_combine(uint32_t a, uint32_t b, uint64_t len_b)
{
    return mul_mod(x_pow_8n(len_b), a) ^ b;
}

__device__ inline void warp_combine(uint32_t &crc, uint64_t &len)
{
    const uint32_t lane = threadIdx.x & 31;
    for (uint32_t d = 1; d < 32; d <<= 1) {
        const uint32_t pc = __shfl_down_sync(0xffffffffu, crc, d);
        const uint64_t pl = __shfl_down_sync(0xffffffffu, len, d);
        if ((lane & (2 * d - 1)) == 0 && lane + d < 32) {
            crc = crc_combine(crc, pc, pl);
            len += pl;
        }
    }
}

constexpr uint32_t CRC_THREADS = 256, CRC_SLICE = CRC_SPAN / CRC_THREADS;

// The plane's payload: the header's range when decoding, its value map and group records
// (contiguous) when encoding.
__device__ inline void plane_payload(const GpuPlane &p, const GpuPlaneState &st, const GpuGroup *groups,
                                     int verify, uint64_t &off, uint64_t &len)
{
    off = p.payload_off;
    len = p.payload_len;
    if (verify)
        return;
    off = len = 0;
    if (p.group_count) {
        const GpuGroup &first = groups[p.group_first], &last = groups[p.group_first + p.group_count - 1];
        off = first.offset;
        len = last.offset + last.bytes - off;
    }
    off -= st.map_len;
    len += st.map_len;
}

__device__ inline uint32_t crc_word(const uint32_t (*t)[256], uint32_t c)
{
    return t[3][c & 0xFFu] ^ t[2][(c >> 8) & 0xFFu] ^ t[1][(c >> 16) & 0xFFu] ^ t[0][c >> 24];
}

// CRC-32 of [q, end): bytes to a 16-byte boundary, then 16-byte loads (unrolled, so that several
// are in flight: a thread's loads are what a slice waits for), then the tail.
__device__ inline uint32_t crc_slice(const uint32_t (*t)[256], const uint8_t *q, const uint8_t *end)
{
    uint32_t c = 0xFFFFFFFFu;
    for (; q < end && (reinterpret_cast<uintptr_t>(q) & 15u); q++)
        c = t[0][(c ^ *q) & 0xFFu] ^ (c >> 8);
#pragma unroll 4
    for (; end - q >= 16; q += 16) { // little-endian words, as the bytes come
        const uint4 w = *reinterpret_cast<const uint4 *>(q);
        c = crc_word(t, c ^ w.x);
        c = crc_word(t, c ^ w.y);
        c = crc_word(t, c ^ w.z);
        c = crc_word(t, c ^ w.w);
    }
    for (; q < end; q++)
        c = t[0][(c ^ *q) & 0xFFu] ^ (c >> 8);
    return ~c;
}

// A block per CRC_SPAN bytes of a plane's payload (grid: x the span, y the plane from `first`),
// a thread per CRC_SLICE bytes; the slices are folded in order into parts[plane * blocks + x].
// Spans, not group records (a polynomial power per record) or a block per plane (each thread
// waiting on its own loads), keep every thread's loads in flight whatever the batch.
__global__ void slice_crcs(const GpuPlane *planes, const GpuPlaneState *state, uint32_t first,
                           const GpuGroup *groups, const uint8_t *stream, int verify, GpuCrcPart *parts,
                           uint32_t blocks)
{
    const uint32_t pi = first + blockIdx.y;
    uint64_t off, len;
    plane_payload(planes[pi], state[pi], groups, verify, off, len);
    const uint64_t span = uint64_t(blockIdx.x) * CRC_SPAN;
    if (span >= len)
        return; // past the payload (the grid is sized for the largest plane)
    __shared__ uint32_t t[4][256];
    __shared__ uint32_t warp_crc[CRC_THREADS / 32];
    __shared__ uint64_t warp_len[CRC_THREADS / 32];
    for (uint32_t k = threadIdx.x; k < 4 * 256; k += blockDim.x)
        t[k / 256][k % 256] = d_table[k / 256][k % 256];
    __syncthreads();
    const uint64_t a = min(len, span + uint64_t(threadIdx.x) * CRC_SLICE), e = min(len, a + CRC_SLICE);
    uint32_t crc = e > a ? crc_slice(t, stream + off + a, stream + off + e) : 0; // empty: folds as nothing
    uint64_t n = e - a;
    warp_combine(crc, n);
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (lane == 0) {
        warp_crc[warp] = crc;
        warp_len[warp] = n;
    }
    __syncthreads();
    if (warp)
        return;
    crc = lane < CRC_THREADS / 32 ? warp_crc[lane] : 0;
    n = lane < CRC_THREADS / 32 ? warp_len[lane] : 0;
    warp_combine(crc, n);
    if (lane == 0)
        parts[uint64_t(pi) * blocks + blockIdx.x] = GpuCrcPart{n, crc, 0};
}

// A warp per plane folds its spans' CRCs in order; decode compares, encode records the payload.
__global__ void fold_plane_crcs(const GpuPlane *planes, uint32_t count, const GpuGroup *groups,
                                GpuPlaneState *state, const GpuCrcPart *parts, uint32_t blocks, int verify)
{
    const uint32_t pi = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (pi >= count)
        return;
    const uint32_t lane = threadIdx.x & 31;
    const GpuPlane p = planes[pi];
    uint64_t off, len;
    plane_payload(p, state[pi], groups, verify, off, len);
    const uint64_t spans = (len + CRC_SPAN - 1) / CRC_SPAN, nb = spans < blocks ? spans : blocks;
    const uint32_t s = uint32_t((nb + 31) / 32);
    const uint32_t a = min(uint32_t(nb), lane * s), e = min(uint32_t(nb), a + s);
    uint32_t crc = 0;
    uint64_t n = 0;
    for (uint32_t k = a; k < e; k++) {
        const GpuCrcPart part = parts[uint64_t(pi) * blocks + k];
        crc = crc_combine(crc, part.crc, part.len);
        n += part.len;
    }
    warp_combine(crc, n);
    if (lane == 0) {
        if (verify) {
            // the checksum is the verdict, as the CPU decoder checks it before it reads the
            // groups: it replaces what the group walk found in a damaged payload
            if (crc != p.crc_expected || n != len)
                atomicExch(&state[pi].error, uint32_t(GPU_ERR_CRC));
        } else {
            state[pi].crc = crc;
            state[pi].payload_off = off;
            state[pi].payload_len = len;
        }
    }
}

} // namespace

void gpu_crc_init()
{
    uint32_t table[4][256], x2n[32];
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ POLY : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t k = 1; k < 4; k++)
        for (uint32_t n = 0; n < 256; n++)
            table[k][n] = (table[k - 1][n] >> 8) ^ table[0][table[k - 1][n] & 0xFFu];
    x2n[0] = 0x40000000u; // x^1
    for (int k = 1; k < 32; k++)
        x2n[k] = mul_mod(x2n[k - 1], x2n[k - 1]);
    CUDA_CHECK(cudaMemcpyToSymbol(d_table, table, sizeof table));
    CUDA_CHECK(cudaMemcpyToSymbol(c_x2n, x2n, sizeof x2n));
}

void gpu_plane_crcs(const DeviceBatch &b, uint32_t plane_count, uint32_t blocks, int verify, cudaStream_t s)
{
    if (!plane_count)
        return;
    gpu_for_entries(plane_count, [&](uint32_t first, uint32_t n) {
        slice_crcs<<<dim3(blocks, n), CRC_THREADS, 0, s>>>(b.planes, b.state, first, b.groups, b.stream, verify,
                                                            b.crc_parts, blocks);
        CUDA_CHECK_LAUNCH();
    });
    fold_plane_crcs<<<gpu_blocks(uint64_t(plane_count) * 32, 128), 128, 0, s>>>(
        b.planes, plane_count, b.groups, b.state, b.crc_parts, blocks, verify);
    CUDA_CHECK_LAUNCH();
}

const uint32_t *gpu_crc_table()
{
    void *table = nullptr;
    CUDA_CHECK(cudaGetSymbolAddress(&table, d_table)); // on the current device
    return static_cast<const uint32_t *>(table);
}
