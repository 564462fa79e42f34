// gpu_block_bits.h - a block writes a bit string in chunks: each thread ORs its bits into a
// shared-memory word buffer at offsets from a block scan, then the block copies the whole bytes
// out and carries the partial last byte into the next chunk. The baseline group coder
// (group_coder_gpu.cu) writes its records so, and the entropy profile's binariser
// (group_coder_ec_binarise_gpu.cu) its raw streams.
#pragma once

#include <cstdint>

// ORs the low n bits of v (n <= 32) at stream bit position pos of the shared word buffer.
__device__ inline void put_bits(uint32_t *w, uint32_t pos, uint32_t v, uint32_t n)
{
    if (!n)
        return;
    const uint32_t i = pos >> 5, s = pos & 31;
    if (s + n <= 32) {
        atomicOr(&w[i], v << (32 - s - n));
    } else {
        atomicOr(&w[i], v >> (s + n - 32));
        atomicOr(&w[i + 1], v << (64 - s - n));
    }
}

// The bytes written so far and the bits of the byte not yet complete.
struct BlockBits {
    uint32_t carry_bits = 0, carry_byte = 0;
    uint64_t written = 0;

    // After the buffer is cleared and the block has synchronised: thread 0 puts the carried bits
    // in front (the others may OR into word 0 at the same time). The chunk's bits start at
    // bit carry_bits.
    __device__ void start(uint32_t *words) const
    {
        if (threadIdx.x == 0 && carry_bits)
            atomicOr(&words[0], carry_byte << 24);
    }

    // After the chunk's bits (chunk_bits of them) are in and the block has synchronised: its whole
    // bytes to dst. The caller synchronises again before the buffer is cleared.
    __device__ void flush(const uint32_t *words, uint32_t chunk_bits, uint8_t *dst)
    {
        const uint32_t avail = carry_bits + chunk_bits, full = avail / 8;
        for (uint32_t k = threadIdx.x; k < full; k += blockDim.x)
            dst[written + k] = uint8_t(words[k >> 2] >> (24 - 8 * (k & 3)));
        carry_bits = avail & 7;
        carry_byte = carry_bits ? (words[full >> 2] >> (24 - 8 * (full & 3))) & 0xffu : 0u;
        written += full;
    }

    // The last, zero-padded byte.
    __device__ void finish(uint8_t *dst) const
    {
        if (threadIdx.x == 0 && carry_bits)
            dst[written] = uint8_t(carry_byte);
    }
};
