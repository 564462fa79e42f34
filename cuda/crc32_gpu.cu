// crc32_gpu.cu - the codestream's CRC-32 (zlib/PNG polynomial) on the GPU, and the header writer
// (the twin of codec/src/container.c). A thread checksums a group record (four bytes a step,
// slicing-by-4 tables); CRCs of pieces are combined with the GF(2) identity
// crc(A || B) = crc(A) * x^(8 |B|) + crc(B) mod P, so a warp folds a plane's groups, in any
// split, to the same value as the CPU's one pass.
#include "gpu_check.h"
#include "gpu_kernels.h"

extern "C" {
#include "internal.h"
}

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

__device__ inline uint32_t crc_bytes(const uint32_t *table, const uint8_t *p, uint64_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (uint64_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return ~c;
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

// A thread per record: splitting a record over a warp costs more in combining the slices (a
// polynomial power per step) than it saves.
__global__ void group_crcs(GpuGroup *groups, uint64_t n, const uint8_t *stream)
{
    __shared__ uint32_t t[4][256];
    for (uint32_t k = threadIdx.x; k < 4 * 256; k += blockDim.x)
        t[k / 256][k % 256] = d_table[k / 256][k % 256];
    __syncthreads();
    const uint64_t g = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    const GpuGroup &grp = groups[g];
    const uint8_t *p = stream + grp.offset, *const end = p + grp.bytes;
    uint32_t c = 0xFFFFFFFFu;
    for (; p < end && (reinterpret_cast<uintptr_t>(p) & 3u); p++) // to a word boundary
        c = t[0][(c ^ *p) & 0xFFu] ^ (c >> 8);
    for (; end - p >= 4; p += 4) { // little-endian words, as the bytes come
        c ^= *reinterpret_cast<const uint32_t *>(p);
        c = t[3][c & 0xFFu] ^ t[2][(c >> 8) & 0xFFu] ^ t[1][(c >> 16) & 0xFFu] ^ t[0][c >> 24];
    }
    for (; p < end; p++)
        c = t[0][(c ^ *p) & 0xFFu] ^ (c >> 8);
    groups[g].crc = ~c;
}

__global__ void plane_crcs(const GpuPlane *planes, uint32_t count, const GpuGroup *groups,
                           GpuPlaneState *state, int verify)
{
    const uint32_t pi = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (pi >= count)
        return;
    const uint32_t lane = threadIdx.x & 31;
    const GpuPlane p = planes[pi];
    const uint32_t s = (p.group_count + 31) / 32;
    const uint32_t a = min(p.group_count, lane * s), e = min(p.group_count, a + s);
    uint32_t crc = 0;
    uint64_t len = 0;
    for (uint32_t k = a; k < e; k++) {
        const GpuGroup &grp = groups[p.group_first + k];
        const uint64_t rl = grp.bytes;
        crc = crc_combine(crc, grp.crc, rl);
        len += rl;
    }
    warp_combine(crc, len);
    if (lane == 0) {
        if (verify) {
            if (crc != p.crc_expected)
                atomicCAS(&state[pi].error, 0u, uint32_t(GPU_ERR_CRC));
        } else {
            state[pi].crc = crc;
            state[pi].payload_off = groups[p.group_first].offset;
            state[pi].payload_len = len;
        }
    }
}

__device__ inline void put16(uint8_t *d, uint32_t v) { d[0] = uint8_t(v); d[1] = uint8_t(v >> 8); }
__device__ inline void put32(uint8_t *d, uint32_t v) { put16(d, v); put16(d + 2, v >> 16); }

// A thread per frame writes its header in front of its first payload (docs/FORMAT.md, Sec. 1).
__global__ void write_headers(GpuFrame *frames, uint32_t count, const GpuPlane *planes,
                              const GpuPlaneState *state, uint8_t *stream)
{
    const uint32_t f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= count)
        return;
    GpuFrame fr = frames[f];
    const uint64_t start = state[fr.plane_first].payload_off - fr.header_size;
    uint8_t *d = stream + start;
    for (uint32_t k = 0; k < fr.header_size; k++)
        d[k] = 0;
    d[0] = 'P'; d[1] = 'C'; d[2] = 'W'; d[3] = 'T';
    d[4] = PCWT_FORMAT_VERSION;
    d[5] = uint8_t(fr.profile);
    put16(d + 6, fr.header_size);
    put32(d + 8, fr.width);
    put32(d + 12, fr.height);
    d[16] = uint8_t(fr.components);
    d[17] = uint8_t(fr.bits_alloc);
    d[18] = uint8_t(fr.bits_stored);
    d[19] = uint8_t((fr.is_signed ? 1u : 0u) | (fr.planar ? 2u : 0u) | (fr.rct ? 4u : 0u));
    d[20] = uint8_t(fr.levels);
    d[21] = uint8_t(fr.plane_count);
    put16(d + 22, fr.gr);
    put16(d + 24, fr.gc);
    uint64_t end = start + fr.header_size;
    for (uint32_t i = 0; i < fr.plane_count; i++) {
        const GpuPlane &p = planes[fr.plane_first + i];
        const GpuPlaneState &st = state[fr.plane_first + i];
        uint8_t *r = d + PCWT_HEADER_FIXED + PCWT_PLANE_RECORD * i;
        r[0] = uint8_t(p.comp);
        r[1] = uint8_t(p.kind);
        r[2] = uint8_t(int8_t(st.qmax));
        put32(r + 4, uint32_t(st.payload_len));
        put32(r + 8, uint32_t(st.payload_len >> 32));
        put32(r + 12, st.crc);
        end += st.payload_len;
    }
    put32(d + fr.header_size - 4, crc_bytes(d_table[0], d, fr.header_size - 4));
    fr.out_start = start;
    fr.out_end = end;
    frames[f] = fr;
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

void gpu_group_crcs(const DeviceBatch &b, uint64_t groups, uint32_t, cudaStream_t s)
{
    if (!groups)
        return;
    group_crcs<<<gpu_blocks(groups, 128), 128, 0, s>>>(b.groups, groups, b.stream);
    CUDA_CHECK_LAUNCH();
}

void gpu_plane_crcs(const DeviceBatch &b, uint32_t plane_count, int verify, cudaStream_t s)
{
    plane_crcs<<<gpu_blocks(uint64_t(plane_count) * 32, 128), 128, 0, s>>>(b.planes, plane_count,
                                                                       b.groups, b.state, verify);
    CUDA_CHECK_LAUNCH();
}

void gpu_write_headers(const DeviceBatch &b, uint32_t frame_count, cudaStream_t s)
{
    write_headers<<<gpu_blocks(frame_count, 64), 64, 0, s>>>(b.frames, frame_count, b.planes, b.state,
                                                        b.stream);
    CUDA_CHECK_LAUNCH();
}
