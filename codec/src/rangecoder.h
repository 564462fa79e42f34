/* rangecoder.h - the binary range coder and adaptive bit models of the entropy profile
 * (profile 1, docs/FORMAT.md Sec. 5). Integer-only and byte-exact, so that a GPU twin writes
 * the same bytes:
 *
 *   model:   p = P(bit = 1) in 1/32768 units, always in 32..32736 (initial value from
 *            ec_tables.h), n = updates so far (starts at PCWT_EC_INIT_N); after coding a bit with
 *            p, with s = min(n + 1, 6):
 *            bit 1: p += (32736 - p) >> s;  bit 0: p -= (p - 32) >> s;  n = n + 1.
 *   coder:   LZMA-style range coder, 32-bit range, carry handled through a cached byte.
 *            bound = (range >> 15) * pc; bit 1 takes [0, bound), bit 0 takes [bound, range).
 *            The encoder does not write LZMA's always-zero first byte; its flush picks the value
 *            in [low, low + range) with the most trailing zero bits, and trailing zero bytes
 *            are dropped (the decoder reads zero bytes past the end of the stream).
 */
#ifndef PCWT_RANGECODER_H
#define PCWT_RANGECODER_H

#include "hostdev.h"
#include "word_window.h"

#include <stddef.h>
#include <stdint.h>

#define PCWT_RC_PBITS 15
#define PCWT_RC_PONE (1u << PCWT_RC_PBITS)
#define PCWT_RC_PMIN 32u
#define PCWT_RC_PMAX (PCWT_RC_PONE - 32u)
#define PCWT_RC_MAXSHIFT 6u
#define PCWT_RC_TOP (1u << 24)

/* The GPU encoder (cuda/group_coder_ec_encode_gpu.cu defines PCWT_RC_GPU_SPLIT_MODELS) keeps a
 * model in three bytes of shared memory instead of four, so that an SM holds ten blocks of its
 * threads instead of eight: its range coders wait on latency, which the extra threads hide (the
 * decoder is slower that way and keeps the paired layout below). The split layout, at the start of
 * dynamic shared memory: PCWT_RC_GPU_MODELS rows (room for the 106 models of ec_model.h, which
 * checks) of PCWT_RC_GPU_LANES p words, then as many shift bytes in the same order. Model i of
 * thread t is at i * LANES + 2 (t % 32) + t / 32: the two warps of a block share 32-bit words, so
 * that the 32 threads of a warp hit 32 different banks whichever p they read. */
#define PCWT_RC_GPU_LANES 64u
#define PCWT_RC_GPU_MODELS 112u
#define PCWT_RC_GPU_SMEM (PCWT_RC_GPU_MODELS * PCWT_RC_GPU_LANES * 3u)

/* The GPU decoders (cuda/group_coder_ec_decode_gpu.cu and _pipe_gpu.cu define
 * PCWT_RC_GPU_PAIRED_MODELS; their models interleaved by thread, PCWT_RC_GPU_LANES threads) keep a model's p and shift in two 16-bit arrays, the shift
 * PCWT_RC_GPU_PAIRED_MODELS_AT entries after its p: a load or store each at a constant offset,
 * where the two halves of one 32-bit word take three instructions to unpack and one to pack at
 * every bin. The same four bytes a model. */
#define PCWT_RC_GPU_PAIRED_ALL 106u /* the models of ec_model.h, which checks */
#define PCWT_RC_GPU_PAIRED_MODELS_AT (PCWT_RC_GPU_PAIRED_ALL * PCWT_RC_GPU_LANES)
#if defined(__CUDA_ARCH__) && (defined(PCWT_RC_GPU_SPLIT_MODELS) || defined(PCWT_RC_GPU_PAIRED_MODELS))
typedef struct pcwt_bit_model {
    uint16_t p; /* P(1) << 15; the shift is in the second array */
} pcwt_bit_model;
#else
/* The adaptation shift min(n + 1, 6) is kept instead of n: s starts at n0 + 1 and grows by one
 * per update up to 6, which is the same rule. */
typedef struct pcwt_bit_model {
    uint16_t p; /* P(1) << 15 */
    uint16_t s; /* shift of the next update */
} pcwt_bit_model;
#endif

#if defined(__CUDACC__) && defined(PCWT_RC_GPU_SPLIT_MODELS)
static inline __device__ pcwt_bit_model *pcwt_rc_gpu_models(void)
{
    extern __shared__ pcwt_bit_model pcwt_rc_gpu_smem[];
    return pcwt_rc_gpu_smem;
}

/* Model 0 of thread t (its models follow with stride PCWT_RC_GPU_LANES). */
static inline __device__ pcwt_bit_model *pcwt_rc_gpu_thread_models(uint32_t t)
{
    return pcwt_rc_gpu_models() + 2u * (t % 32u) + t / 32u;
}

/* The shift byte of model m. */
static inline __device__ uint8_t *pcwt_rc_gpu_shift(const pcwt_bit_model *m)
{
    pcwt_bit_model *const base = pcwt_rc_gpu_models();
    return (uint8_t *)(base + PCWT_RC_GPU_MODELS * PCWT_RC_GPU_LANES) + (m - base);
}
#endif

/* The adaptation rule (see the top of this file), written once: p after a 1 and after a 0 with
 * shift s, and the shift of the update after one with shift s, s + (s < 6). On x86 hosts the
 * latter is a compare and an add with carry, which GCC 12 does not find (it spends four
 * instructions; the CPU decoder codes a bin in about twenty). */
static inline PCWT_HD uint32_t pcwt_model_up(uint32_t p, uint32_t s)
{
    return p + ((PCWT_RC_PMAX - p) >> s);
}

static inline PCWT_HD uint32_t pcwt_model_down(uint32_t p, uint32_t s)
{
    return p - ((p - PCWT_RC_PMIN) >> s);
}

static inline PCWT_HD uint32_t pcwt_model_shift_after(uint32_t s)
{
#if defined(__CUDA_ARCH__)
    /* s <= 6 always, so this is min(s + 1, 6): one add-and-minimum instruction on sm_90 */
    return s + 1u < PCWT_RC_MAXSHIFT ? s + 1u : PCWT_RC_MAXSHIFT;
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__("cmpl %1, %0\n\tadcl $0, %0" : "+r"(s) : "i"(PCWT_RC_MAXSHIFT) : "cc");
    return s;
#else
    return s + (s < PCWT_RC_MAXSHIFT);
#endif
}

#if defined(__CUDA_ARCH__) && defined(PCWT_RC_GPU_PAIRED_MODELS)
typedef uint16_t pcwt_rc_gpu_shift_t;

/* The shift of model m in the paired layout. */
static inline __device__ uint16_t *pcwt_rc_gpu_shift(const pcwt_bit_model *m)
{
    return (uint16_t *)&m[PCWT_RC_GPU_PAIRED_MODELS_AT].p;
}
#elif defined(__CUDA_ARCH__) && defined(PCWT_RC_GPU_SPLIT_MODELS)
typedef uint8_t pcwt_rc_gpu_shift_t;
#endif

#if defined(__CUDA_ARCH__) && (defined(PCWT_RC_GPU_SPLIT_MODELS) || defined(PCWT_RC_GPU_PAIRED_MODELS))
static inline __device__ void pcwt_model_init(pcwt_bit_model *m, uint32_t p, uint32_t s)
{
    m->p = (uint16_t)p;
    *pcwt_rc_gpu_shift(m) = (pcwt_rc_gpu_shift_t)s;
}

static inline __device__ uint32_t pcwt_model_shift(const pcwt_bit_model *m)
{
    return *pcwt_rc_gpu_shift(m);
}

static inline __device__ void pcwt_model_store(pcwt_bit_model *m, uint32_t p, uint32_t s)
{
    m->p = (uint16_t)p;
    *pcwt_rc_gpu_shift(m) = (pcwt_rc_gpu_shift_t)pcwt_model_shift_after(s);
}
#else
static inline PCWT_HD void pcwt_model_init(pcwt_bit_model *m, uint32_t p, uint32_t s)
{
    m->p = (uint16_t)p;
    m->s = (uint16_t)s;
}

/* The shift of m's next update. */
static inline PCWT_HD uint32_t pcwt_model_shift(const pcwt_bit_model *m) { return m->s; }

/* Stores m's new p after an update with shift s. */
static inline PCWT_HD void pcwt_model_store(pcwt_bit_model *m, uint32_t p, uint32_t s)
{
    m->p = (uint16_t)p;
    m->s = (uint16_t)pcwt_model_shift_after(s);
}
#endif

static inline PCWT_HD uint32_t pcwt_model_p(const pcwt_bit_model *m) { return m->p; }

static inline PCWT_HD void pcwt_model_update(pcwt_bit_model *m, uint32_t bit)
{
    const uint32_t s = pcwt_model_shift(m);
    const uint32_t p = pcwt_model_p(m);
    pcwt_model_store(m, bit ? pcwt_model_up(p, s) : pcwt_model_down(p, s), s);
}

/* A model's p after a bit coded with shift s, without a branch on the bit (ones: all ones when
 * the bit is 1). */
static inline PCWT_HD uint32_t pcwt_model_next_p(uint32_t p, uint32_t s, uint32_t ones)
{
    const uint32_t up = pcwt_model_up(p, s), down = pcwt_model_down(p, s);
    return down ^ ((up ^ down) & ones);
}

/* The same update without a branch on the bit. */
static inline PCWT_HD void pcwt_model_update_flat(pcwt_bit_model *m, uint32_t ones)
{
    const uint32_t s = pcwt_model_shift(m);
    pcwt_model_store(m, pcwt_model_next_p(pcwt_model_p(m), s, ones), s);
}

typedef struct pcwt_rc_enc {
    uint64_t low;   /* up to 33 bits: bit 32 is a carry into the cached byte */
    uint32_t range;
    uint32_t cache; /* the byte not yet written (a carry may still change it) */
    uint64_t cache_size;
    int first;      /* the first byte of an LZMA stream is always 0 and is not written */
    uint8_t *p, *end;
    int overflow;   /* set when a nonzero byte falls at or past end; nothing is written past it
                     * (zero bytes there do not count: the finished stream drops trailing zeros, so
                     * without overflow the finished stream lies entirely before end) */
#ifdef __CUDA_ARCH__
    /* A GPU thread's byte store costs the memory system a whole sector, and the lanes of a warp
     * write to as many streams: the bytes gather here (wn of them, the first in the low byte,
     * due at p) and go out as aligned 8-byte words, those before the first boundary one by one. */
    uint64_t wbuf;
    uint32_t wn;
#endif
} pcwt_rc_enc;

static inline PCWT_HD void pcwt_rc_enc_init(pcwt_rc_enc *e, uint8_t *dst, size_t cap)
{
    e->low = 0;
    e->range = 0xFFFFFFFFu;
    e->cache = 0;
    e->cache_size = 1;
    e->first = 1;
    e->p = dst;
    e->end = dst + cap;
    e->overflow = 0;
#ifdef __CUDA_ARCH__
    e->wbuf = 0;
    e->wn = 0;
#endif
}

#ifdef __CUDA_ARCH__
/* The gathered bytes to memory one by one. */
static inline __device__ void pcwt_rc_flush_bytes(pcwt_rc_enc *e)
{
    for (uint32_t k = 0; k < e->wn; k++)
        e->p[k] = (uint8_t)(e->wbuf >> (8 * k));
    e->p += e->wn;
    e->wbuf = 0;
    e->wn = 0;
}
#endif

static inline PCWT_HD void pcwt_rc_put_byte(pcwt_rc_enc *e, uint32_t b)
{
    if (e->first) {
        e->first = 0;
        return;
    }
#ifdef __CUDA_ARCH__
    uint8_t *const at = e->p + e->wn;
    if (at == e->end) {
        if (b & 0xFFu)
            e->overflow = 1;
        return;
    }
    e->wbuf |= (uint64_t)(b & 0xFFu) << (8 * e->wn);
    e->wn++;
    if (((uintptr_t)(at + 1) & 7u) == 0) { /* the gathered bytes end at a word boundary */
        if (e->wn == 8) {
            *(uint64_t *)e->p = e->wbuf;
            e->p += 8;
            e->wbuf = 0;
            e->wn = 0;
        } else {
            pcwt_rc_flush_bytes(e);
        }
    }
#else
    if (e->p == e->end) {
        if (b & 0xFFu)
            e->overflow = 1;
        return;
    }
    *e->p++ = (uint8_t)b;
#endif
}

/* Byte `top` leaves the window, with `carry` (0 or 1) for the bytes before it: those are written
 * unless top is 0xFF without a carry (a later carry may still change it and them). */
static inline PCWT_HD void pcwt_rc_take_byte(pcwt_rc_enc *e, uint32_t top, uint32_t carry)
{
    if (top < 0xFFu || carry) {
        uint32_t temp = e->cache;
        do {
            pcwt_rc_put_byte(e, (temp + carry) & 0xFFu);
            temp = 0xFF;
        } while (--e->cache_size != 0);
        e->cache = top;
    }
    e->cache_size++;
}

static inline PCWT_HD void pcwt_rc_shift_low(pcwt_rc_enc *e)
{
    pcwt_rc_take_byte(e, (uint32_t)(e->low >> 24) & 0xFFu, (uint32_t)(e->low >> 32));
    e->low = (e->low & 0x00FFFFFFu) << 8;
}

/* Narrows the interval to the bit's part for a model of probability p; returns all ones when
 * the bit is 1 (for the model's update). */
static inline PCWT_HD uint32_t pcwt_rc_narrow(pcwt_rc_enc *e, uint32_t p, uint32_t bit)
{
    const uint32_t bound = (e->range >> PCWT_RC_PBITS) * p;
    const uint32_t keep = 0u - bit; /* all ones when the bit is 1 */
    e->low += bound & ~keep;
    e->range = (bound & keep) | ((e->range - bound) & ~keep);
    return keep;
}

static inline PCWT_HD void pcwt_rc_encode(pcwt_rc_enc *e, pcwt_bit_model *m, uint32_t bit)
{
    pcwt_model_update_flat(m, pcwt_rc_narrow(e, pcwt_model_p(m), bit));
    while (e->range < PCWT_RC_TOP) {
        e->range <<= 8;
        pcwt_rc_shift_low(e);
    }
}

/* The same coder with its renormalisation deferred, for coders that run in lockstep (the GPU's):
 * up to three bytes that left the 32-bit window wait in low above it, the carry above the oldest,
 * and are taken later, in order (pcwt_rc_lazy_take_all), so that a warp's lanes take theirs
 * together instead of one lane at a time at every bin. The bytes are those of pcwt_rc_encode:
 * low is the same number, only its carries resolve later. */
typedef struct pcwt_rc_lazy {
    pcwt_rc_enc e;
    uint32_t waiting; /* bytes above the window, 0..3 */
} pcwt_rc_lazy;

static inline PCWT_HD void pcwt_rc_lazy_init(pcwt_rc_lazy *z, uint8_t *dst, size_t cap)
{
    pcwt_rc_enc_init(&z->e, dst, cap);
    z->waiting = 0;
}

/* Takes the oldest waiting byte, at bits 24 + 8 k .. 31 + 8 k, its carry just above. */
static inline PCWT_HD void pcwt_rc_lazy_take(pcwt_rc_lazy *z)
{
    const uint32_t at = 24u + 8u * z->waiting;
    pcwt_rc_take_byte(&z->e, (uint32_t)(z->e.low >> at) & 0xFFu, (uint32_t)(z->e.low >> (at + 8u)));
    z->e.low &= ((uint64_t)1 << at) - 1u;
    z->waiting--;
}

static inline PCWT_HD void pcwt_rc_lazy_take_all(pcwt_rc_lazy *z)
{
    while (z->waiting)
        pcwt_rc_lazy_take(z);
}

/* pcwt_rc_encode of a bit whose model has probability p; the caller updates the model. */
static inline PCWT_HD void pcwt_rc_lazy_encode(pcwt_rc_lazy *z, uint32_t p, uint32_t bit)
{
    pcwt_rc_narrow(&z->e, p, bit);
    /* Bytes to shift out: the range is at least 2^14 after a bit, so two at most; shifted at
     * once, without a loop that the lanes of a warp would leave at different turns. */
    const uint32_t n = (uint32_t)(z->e.range < PCWT_RC_TOP) + (uint32_t)(z->e.range < (1u << 16));
    while (z->waiting + n > 3) /* 3 bytes, the window and a carry: 57 bits; no more fit */
        pcwt_rc_lazy_take(z);
    z->e.range <<= 8 * n;
    z->e.low <<= 8 * n;
    z->waiting += n;
}

/* Ends the stream; returns its length in bytes (trailing zero bytes dropped). */
static inline PCWT_HD size_t pcwt_rc_enc_finish(pcwt_rc_enc *e, uint8_t *start)
{
    /* The value in [low, low + range) with the most trailing zero bits. */
    const uint64_t hi = e->low + e->range - 1u;
    uint64_t v = hi;
    for (uint32_t s = 32; s > 0; s--) {
        const uint64_t c = hi & ~(((uint64_t)1 << s) - 1u);
        if (c >= e->low) {
            v = c;
            break;
        }
    }
    e->low = v;
    for (int i = 0; i < 5; i++)
        pcwt_rc_shift_low(e);
#ifdef __CUDA_ARCH__
    pcwt_rc_flush_bytes(e);
#endif
    uint8_t *q = e->p;
    while (q > start && q[-1] == 0)
        q--;
    return (size_t)(q - start);
}

typedef struct pcwt_rc_dec {
    uint32_t range, code;
#ifdef __CUDA_ARCH__
    pcwt_gpu_window in; /* the bytes after those in code */
#else
    const uint8_t *p, *end;
    uint64_t reads; /* zero bytes taken past the end */
#endif
} pcwt_rc_dec;

#ifdef __CUDA_ARCH__
/* Takes sh = 0, 8 or 16 bits into code (range shifted alike by the caller). */
static inline __device__ void pcwt_rc_take(pcwt_rc_dec *d, uint32_t sh)
{
    d->code = __funnelshift_l(pcwt_gpu_window_top(&d->in), d->code, sh);
    pcwt_gpu_window_skip(&d->in, sh);
}
#else
static inline uint32_t pcwt_rc_next_byte(pcwt_rc_dec *d)
{
    if (d->p < d->end)
        return *d->p++;
    d->reads++; /* zero bytes past the end */
    return 0u;
}
#endif

static inline PCWT_HD void pcwt_rc_dec_init(pcwt_rc_dec *d, const uint8_t *src, size_t size)
{
    d->range = 0xFFFFFFFFu;
    d->code = 0;
#ifdef __CUDA_ARCH__
    pcwt_gpu_window_init(&d->in, src, src + size);
    pcwt_rc_take(d, 16);
    pcwt_rc_take(d, 16);
#else
    d->end = src + size;
    d->p = src;
    d->reads = 0;
    for (int i = 0; i < 4; i++)
        d->code = (d->code << 8) | pcwt_rc_next_byte(d);
#endif
}

/* Bytes the decoder has taken from the stream of start, zero bytes past its end included. */
static inline PCWT_HD uint64_t pcwt_rc_dec_taken(const pcwt_rc_dec *d, const uint8_t *start)
{
#ifdef __CUDA_ARCH__
    return pcwt_gpu_window_pos(&d->in, start) / 8;
#else
    return (uint64_t)(d->p - start) + d->reads;
#endif
}

/* Refills after a decision: the range never falls below 2^14, so two bytes at most. */
static inline PCWT_HD void pcwt_rc_dec_normalize(pcwt_rc_dec *d)
{
#ifdef __CUDA_ARCH__
    /* The range's leading zeros, 0..17, rounded down to whole bytes: one count and a mask where
     * two compares need two selects and an add. From the top bit's position b, 31 - b = ~b in
     * the five low bits: the hardware's find-leading-one gives b, and __clz would subtract it
     * from 31 on the bin's critical path. */
#ifdef __CUDACC__
    uint32_t top;
    asm("bfind.u32 %0, %1;" : "=r"(top) : "r"(d->range));
#else /* the host compiling the device path (tests/unit/test_ec_device_path.cpp) */
    const uint32_t top = 31u - (uint32_t)__clz((int)d->range);
#endif
    const uint32_t sh = ~top & 24u;
    d->range <<= sh;
    pcwt_rc_take(d, sh);
#else
    if (d->range < PCWT_RC_TOP) {
        d->range <<= 8;
        d->code = (d->code << 8) | pcwt_rc_next_byte(d);
        if (d->range < PCWT_RC_TOP) {
            d->range <<= 8;
            d->code = (d->code << 8) | pcwt_rc_next_byte(d);
        }
    }
#endif
}

#ifdef __CUDA_ARCH__
/* A model held in registers, p and the shift of its next update: a GPU thread waits for each
 * load at its first use, so the group decoder loads a model a bin ahead and stores it after. */
typedef struct pcwt_model_regs {
    uint32_t p, s;
} pcwt_model_regs;

static inline __device__ pcwt_model_regs pcwt_model_load(const pcwt_bit_model *m)
{
    pcwt_model_regs r;
    r.p = pcwt_model_p(m);
    r.s = pcwt_model_shift(m);
    return r;
}

static inline __device__ void pcwt_model_put(pcwt_bit_model *m, pcwt_model_regs r)
{
    pcwt_model_init(m, r.p, r.s);
}

/* A bin with a model in registers, updated there; the outcome's range, code and p are selected,
 * not branched on. */
static inline __device__ uint32_t pcwt_rc_decode_regs(pcwt_rc_dec *d, pcwt_model_regs *m)
{
    const uint32_t bound = (d->range >> PCWT_RC_PBITS) * m->p;
    const uint32_t bit = d->code < bound;
    d->range = bit ? bound : d->range - bound;
    d->code = bit ? d->code : d->code - bound;
    m->p = bit ? pcwt_model_up(m->p, m->s) : pcwt_model_down(m->p, m->s);
    m->s = pcwt_model_shift_after(m->s);
    pcwt_rc_dec_normalize(d);
    return bit;
}

static inline __device__ uint32_t pcwt_rc_decode(pcwt_rc_dec *d, pcwt_bit_model *m)
{
    pcwt_model_regs r = pcwt_model_load(m);
    const uint32_t bit = pcwt_rc_decode_regs(d, &r);
    pcwt_model_put(m, r);
    return bit;
}

/* A bin whose value steers no control flow (the mantissa bit and the sign are close to 1/2, a
 * branch on them mispredicted half the time on the CPU): on the GPU every bin selects its
 * outcome without a branch already, so it is the same bin. */
static inline __device__ uint32_t pcwt_rc_decode_flat(pcwt_rc_dec *d, pcwt_bit_model *m)
{
    return pcwt_rc_decode(d, m);
}
#else
/* The CPU's bins, written for x86 code generation: a decode's time goes to these few lines'
 * instructions and to the mispredicted branches on the bits that steer the group coder. */

/* A bin whose value the caller branches on: each side updates the model its own way. */
static inline uint32_t pcwt_rc_decode(pcwt_rc_dec *d, pcwt_bit_model *m)
{
    const uint32_t p = pcwt_model_p(m), s = pcwt_model_shift(m);
    const uint32_t bound = (d->range >> PCWT_RC_PBITS) * p;
    uint32_t bit;
    if (d->code < bound) {
        d->range = bound;
        pcwt_model_store(m, pcwt_model_up(p, s), s);
        bit = 1;
    } else {
        d->range -= bound;
        d->code -= bound;
        pcwt_model_store(m, pcwt_model_down(p, s), s);
        bit = 0;
    }
    pcwt_rc_dec_normalize(d);
    return bit;
}

/* A bin whose value steers no control flow (the mantissa bit and the sign are close to 1/2: a
 * branch on them is mispredicted half the time): the interval by conditional moves on the
 * compare's flags, where a select by masks puts three more instructions between the compare and
 * the next bin's range. */
static inline uint32_t pcwt_rc_decode_flat(pcwt_rc_dec *d, pcwt_bit_model *m)
{
    const uint32_t p = pcwt_model_p(m), s = pcwt_model_shift(m);
    const uint32_t bound = (d->range >> PCWT_RC_PBITS) * p;
    const uint32_t up = pcwt_model_up(p, s);
    /* the 0 part, replaced by the 1 part when the bit is 1 */
    uint32_t range = d->range - bound, code = d->code - bound, np = pcwt_model_down(p, s);
    uint32_t bit;
#if defined(__GNUC__) && defined(__x86_64__)
    const uint32_t code0 = d->code;
    __asm__("cmpl %[b], %[c0]\n\t"
            "cmovbl %[b], %[r]\n\t"
            "cmovbl %[c0], %[c]\n\t"
            "cmovbl %[up], %[np]"
            : [r] "+&r"(range), [c] "+&r"(code), [np] "+&r"(np), "=@ccb"(bit)
            : [b] "r"(bound), [c0] "r"(code0), [up] "r"(up));
#else
    bit = d->code < bound;
    range = bit ? bound : range;
    code = bit ? d->code : code;
    np = bit ? up : np;
#endif
    d->range = range;
    d->code = code;
    pcwt_model_store(m, np, s);
    pcwt_rc_dec_normalize(d);
    return bit;
}
#endif

#endif /* PCWT_RANGECODER_H */
