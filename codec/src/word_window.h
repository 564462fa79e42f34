/* word_window.h - how the GPU decoders read a stream: in aligned 32-bit words, each loaded a word
 * ahead of its use, through a window of the next bits. The range decoder (rangecoder.h) takes its
 * bytes from one, the entropy profile's raw reader and MQD row readers (ec_group_coder.h) theirs.
 * Device code only; the CPU reads its streams directly. */
#ifndef PCWT_WORD_WINDOW_H
#define PCWT_WORD_WINDOW_H

#include "hostdev.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDA_ARCH__
/* How the words are loaded: the streams, read-only in the launch, through the read-only cache. A
 * window on bytes written in the same launch (the group decoder's MQD rows,
 * pcwt_gpu_window_init_fresh) loads them with PCWT_GPU_FRESH_LOAD: by default a coherent load
 * cached in L1 (__ldca), which sees what this thread wrote, where the read-only cache promises
 * nothing for data written in the launch; a decoder whose MQDs are written by other
 * multiprocessors in the same launch (cuda/group_coder_ec_pipe_gpu.cu: parent MQDs) defines it
 * before this header (__ldcg: past L1). */
#ifndef PCWT_GPU_FRESH_LOAD
#define PCWT_GPU_FRESH_LOAD __ldca
#endif

/* A GPU thread waits for every load at its first use, and the lanes of a warp that branch apart
 * run one after the other. So the GPU decoder reads its streams in aligned 32-bit words, each
 * loaded a word ahead of its use: ahead is the word at q, amask the mask of its bytes before end
 * (bytes past the end read as zero). The mask is applied where the word is used, so that nothing
 * waits for the load where it is issued. */
typedef struct pcwt_gpu_words {
    const uint8_t *q, *end;
    uint32_t ahead, amask;
    int fresh; /* written in this launch (a constant where the window is made) */
} pcwt_gpu_words;

/* Loads the word at q; none at or past the end. A word that straddles the end lies inside the
 * buffer: the codestream buffer has slack after its last byte, and the MQD arena's size is a
 * multiple of 16 bytes. */
static inline __device__ void pcwt_gpu_words_load(pcwt_gpu_words *w)
{
    const ptrdiff_t left = w->end - w->q;
    uint32_t v = 0;
    if (left > 0)
        v = w->fresh ? PCWT_GPU_FRESH_LOAD((const unsigned int *)w->q)
                     : __ldg((const unsigned int *)w->q);
    w->ahead = v;
    w->amask = left >= 4 ? 0xFFFFFFFFu : left <= 0 ? 0u : (1u << (8 * (uint32_t)left)) - 1u;
}

/* The word ahead, first byte on top, and the next one loaded. */
static inline __device__ uint32_t pcwt_gpu_words_take(pcwt_gpu_words *w)
{
    const uint32_t be = __byte_perm(w->ahead & w->amask, 0, 0x0123);
    w->q += 4;
    pcwt_gpu_words_load(w);
    return be;
}

/* Starts at src: returns the bytes of src's aligned word from src on, first on top (the low
 * 8 * (src % 4) bits zero), and loads the next word. */
static inline __device__ uint32_t pcwt_gpu_words_init(pcwt_gpu_words *w, const uint8_t *src,
                                                      const uint8_t *end, int fresh)
{
    const uint32_t off = (uint32_t)((uintptr_t)src & 3u);
    w->q = src - off;
    w->end = end;
    w->fresh = fresh;
    pcwt_gpu_words_load(w);
    return pcwt_gpu_words_take(w) << (8u * off);
}

/* Bytes before the word ahead, counted from start (those past the end included). */
static inline __device__ uint64_t pcwt_gpu_words_pos(const pcwt_gpu_words *w, const uint8_t *start)
{
    return (uint64_t)(w->q - start);
}

/* A window on a stream's next bits, MSB first, over its aligned words: the next bits (at least
 * 32 between takes) on top of win, then a 1 bit that marks where they end, then zeros. The range
 * decoder takes 0, 8 or 16 bits a decision from one without a branch, the raw reader its bit
 * strings, and the group decoder the MQD bytes of the row above and of the parent row. The
 * marker spares a count of the bits: fewer than 32 are left exactly when the low half of win is
 * zero, one compare where a count would take a subtraction and a compare at every take. */
typedef struct pcwt_gpu_window {
    uint64_t win;
    pcwt_gpu_words w;
} pcwt_gpu_window;

/* The next word below the bits in the window, when fewer than 32 are left (the marker in the
 * high half): it goes where the marker was, with a new marker below it. */
static inline __device__ void pcwt_gpu_window_refill(pcwt_gpu_window *v)
{
    if ((uint32_t)v->win == 0u) {
        const uint32_t hi = (uint32_t)(v->win >> 32);
        const uint32_t at = (uint32_t)__ffs((int)hi) - 1u; /* the marker's bit in hi */
        const uint64_t next = ((uint64_t)pcwt_gpu_words_take(&v->w) << 1) | 1u;
        v->win = ((uint64_t)(hi & (hi - 1u)) << 32) | (next << at);
    }
}

static inline __device__ void pcwt_gpu_window_start(pcwt_gpu_window *v, const uint8_t *src,
                                                    const uint8_t *end, int fresh)
{
    /* the first word's bytes from src on, the marker right below them */
    const uint32_t skip = 8u * (uint32_t)((uintptr_t)src & 3u);
    v->win = ((uint64_t)pcwt_gpu_words_init(&v->w, src, end, fresh) << 32) |
             ((uint64_t)1u << (31u + skip));
    pcwt_gpu_window_refill(v);
}

/* A window on a read-only stream. */
static inline __device__ void pcwt_gpu_window_init(pcwt_gpu_window *v, const uint8_t *src,
                                                   const uint8_t *end)
{
    pcwt_gpu_window_start(v, src, end, 0);
}

/* A window on bytes written in the same launch (PCWT_GPU_FRESH_LOAD). */
static inline __device__ void pcwt_gpu_window_init_fresh(pcwt_gpu_window *v, const uint8_t *src,
                                                         const uint8_t *end)
{
    pcwt_gpu_window_start(v, src, end, 1);
}

/* The next 32 bits. */
static inline __device__ uint32_t pcwt_gpu_window_top(const pcwt_gpu_window *v)
{
    return (uint32_t)(v->win >> 32);
}

/* Drops the next n <= 32 bits. */
static inline __device__ void pcwt_gpu_window_skip(pcwt_gpu_window *v, uint32_t n)
{
    v->win <<= n;
    pcwt_gpu_window_refill(v);
}

/* Bits taken from the stream of start (zero bits past its end included). */
static inline __device__ uint64_t pcwt_gpu_window_pos(const pcwt_gpu_window *v,
                                                      const uint8_t *start)
{
    const uint32_t bits = 64u - (uint32_t)__ffsll((long long)v->win); /* above the marker */
    return 8 * pcwt_gpu_words_pos(&v->w, start) - bits;
}
#endif

#endif /* PCWT_WORD_WINDOW_H */
