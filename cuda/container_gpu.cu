// container_gpu.cu - the codestream header on the GPU, the twin of codec/src/container.c: a thread
// per frame writes its header in front of its first payload through container.h's writers (the
// same fields and bytes as the CPU), then the header's CRC-32 with the device's table
// (crc32_gpu.cu).
#include "gpu_check.h"
#include "gpu_kernels.h"
#include "ec_model.h"

extern "C" {
#include "container.h"
}

namespace {

__device__ inline uint32_t crc_bytes(const uint32_t *table, const uint8_t *p, uint64_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (uint64_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return ~c;
}

__global__ void write_headers(GpuFrame *frames, uint32_t count, const GpuPlane *planes,
                              const GpuPlaneState *state, uint8_t *stream, const uint32_t *crc_table)
{
    const uint32_t f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= count)
        return;
    GpuFrame fr = frames[f];
    const uint64_t start = state[fr.plane_first].payload_off - fr.header_size;
    uint8_t *d = stream + start;
    pcwt_header_fields h;
    h.profile = fr.profile;
    h.header_size = fr.header_size;
    h.width = fr.width;
    h.height = fr.height;
    h.components = fr.components;
    h.bits_allocated = fr.bits_alloc;
    h.bits_stored = fr.bits_stored;
    h.is_signed = fr.is_signed ? 1u : 0u;
    h.planar = fr.planar ? 1u : 0u;
    h.colour_transform = fr.rct ? 1u : 0u;
    h.columns_first = fr.columns_first ? 1u : 0u;
    h.levels = fr.levels;
    h.plane_count = fr.plane_count;
    h.group_rows = fr.group_rows;
    h.group_cols = fr.group_cols;
    pcwt_header_put_fixed(d, &h);
    uint64_t end = start + fr.header_size;
    for (uint32_t i = 0; i < fr.plane_count; i++) {
        const GpuPlane &p = planes[fr.plane_first + i];
        const GpuPlaneState &st = state[fr.plane_first + i];
        // options: bit 0 the low bits, bit 1 the value map, bit 2 5/11-C, bit 3 the modular
        // offset, bit 4 the second mantissa bit (docs/FORMAT.md Sec. 1.2)
        const uint32_t options = (st.low & PCWT_EC_LOW_BITS) | (st.mapped ? 2u : 0u) | st.f511 << 2 |
                                 st.offset << 3 | ((st.low & PCWT_EC_SECOND_BIT) ? 16u : 0u);
        pcwt_plane_record_put(d, i, p.comp, p.kind, st.qmax, options, st.payload_len, st.crc);
        end += st.payload_len;
    }
    pcwt_header_put_crc(d, fr.header_size, crc_bytes(crc_table, d, fr.header_size - 4));
    fr.out_start = start;
    fr.out_end = end;
    frames[f] = fr;
}

} // namespace

void gpu_write_headers(const DeviceBatch &b, uint32_t frame_count, cudaStream_t s)
{
    write_headers<<<gpu_blocks(frame_count, 64), 64, 0, s>>>(b.frames, frame_count, b.planes, b.state,
                                                        b.stream, gpu_crc_table());
    CUDA_CHECK_LAUNCH();
}
