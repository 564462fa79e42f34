/* ec_group_coder.h - one group of the entropy profile (profile 1, docs/FORMAT.md Sec. 5), the
 * part that the CPU codec (group_coder_ec.c, a group at a time) and the CUDA twins
 * (cuda/group_coder_ec_encode_gpu.cu and group_coder_ec_decode_gpu.cu, a thread per group)
 * share, so that both write and accept the same bytes. Per element, in raster order within the
 * group:
 *
 *   MQD      a bit "m = -1" with model zero[z]; then, when m >= 0, d = r - m as truncated unary
 *            (bins "d > k", k = 0..r-1) with model mqd[e][min(k,3)]; z and e from the neighbouring
 *            MQDs (Sec. 5.3).
 *   per coefficient c of TL, TR, BL, BR (only when m >= 0), q = QL(c):
 *            t = m - q as truncated unary (bins "t > k", k = 0..m), model mag[min(m,3)][found][min(k,7)]
 *            (found: an earlier coefficient of this element has q = m); skipped, q = m implied, for the
 *            last coefficient of an LL or level-1 element when none of the first three reached m;
 *            when q >= 1: bit q-1 of |c| with model mant[min(q,7)-1], bits q-2..0 raw; in a plane
 *            that models its low bits (plane option bit 0), bits q-2..2 raw, then bit 1 (q >= 3)
 *            with model low1 and bit 0 (q >= 2) with model low0[bit 1]; in a plane that models
 *            its second mantissa bit (option bit 4), bit q-2 with model mant2[min(q,7)-2] right
 *            after bit q-1 where it would otherwise be raw (pcwt_ec_second_bit);
 *            when c != 0: the sign (1 = negative) with model sign[left sign][above sign].
 *
 * Modelled bits go to the group's range-coder stream, raw bits MSB first to its raw stream. The
 * 106 bit models of a group are reached through a base pointer and a stride (1 on the CPU; the
 * block size on the GPU, where the models of a block's threads are interleaved in shared memory
 * so that neighbouring threads hit different banks).
 *
 * The models and contexts are in ec_model.h, the group encoder in ec_group_encode.h, the group
 * records in ec_record.h; this header includes them and holds the group decoder. */
#ifndef PCWT_EC_GROUP_CODER_H
#define PCWT_EC_GROUP_CODER_H

#include "ec_group_encode.h"
#include "ec_model.h"
#include "ec_record.h"

#include <stddef.h>
#include <stdint.h>

/* ---- decoder -------------------------------------------------------------------------------- */

/* Hooks of the group decoder before and after each row x of a group (b: the band view it was
 * given). Nothing, except in the GPU decoder that overlaps the levels
 * (cuda/group_coder_ec_pipe_gpu.cu), which waits there for the parent rows that row x reads and
 * tells the group's children how far it has come. */
#ifndef PCWT_EC_ROW_BEGIN
#define PCWT_EC_ROW_BEGIN(b, x) ((void)0)
#endif
#ifndef PCWT_EC_ROW_END
#define PCWT_EC_ROW_END(b, x) ((void)0)
#endif

/* MSB-first reader of a group's raw stream: zero bits past the end. */
typedef struct pcwt_ec_raw_reader {
#ifdef __CUDA_ARCH__
    pcwt_gpu_window in; /* word_window.h */
#else
    const uint8_t *p, *end;
    uint64_t acc; /* the next bits, MSB first; n of them are valid */
    uint32_t n;
    uint64_t past; /* zero bytes taken past the end */
#endif
} pcwt_ec_raw_reader;

static inline PCWT_HD void pcwt_ec_raw_init(pcwt_ec_raw_reader *r, const uint8_t *src, size_t size)
{
#ifdef __CUDA_ARCH__
    pcwt_gpu_window_init(&r->in, src, src + size);
#else
    r->p = src;
    r->end = src + size;
    r->acc = 0;
    r->n = 0;
    r->past = 0;
#endif
}

/* Bits taken so far from the stream that starts at src. */
static inline PCWT_HD uint64_t pcwt_ec_raw_pos(const pcwt_ec_raw_reader *r, const uint8_t *src)
{
#ifdef __CUDA_ARCH__
    return pcwt_gpu_window_pos(&r->in, src);
#else
    return 8 * ((uint64_t)(r->p - src) + r->past) - r->n;
#endif
}

/* Reads nbits (0..30). */
static inline PCWT_HD uint32_t pcwt_ec_raw_get(pcwt_ec_raw_reader *r, uint32_t nbits)
{
#ifdef __CUDA_ARCH__
    const uint32_t v = (pcwt_gpu_window_top(&r->in) >> 1) >> (31 - nbits);
    pcwt_gpu_window_skip(&r->in, nbits);
    return v;
#else
    if (r->n < nbits) {
        if (r->end - r->p >= 8) { /* one unaligned big-endian load */
            uint64_t w;
            __builtin_memcpy(&w, r->p, 8);
            w = __builtin_bswap64(w);
            r->acc |= w >> r->n;
            r->p += (63 - r->n) >> 3;
            r->n |= 56;
        } else {
            while (r->n <= 56) {
                uint64_t c = 0;
                if (r->p < r->end)
                    c = *r->p++;
                else
                    r->past++;
                r->acc |= c << (56 - r->n);
                r->n += 8;
            }
        }
    }
    const uint32_t v = (uint32_t)((r->acc >> 1) >> (63 - nbits));
    r->acc <<= nbits;
    r->n -= nbits;
    return v;
#endif
}

/* A truncated-unary run: bins "t > k" with the models base[min(k, cap) * ms], k = 0, 1, ..., up to
 * the first 0 bin or limit 1 bins; returns t, the 1 bins. */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_decode_run(pcwt_rc_dec *rc, pcwt_bit_model *base,
                                                     uint32_t ms, int cap, int limit)
{
    int t = 0;
#ifdef __CUDA_ARCH__
    /* A GPU thread issues in order: the next bin's model is loaded while this bin decodes, so
     * that the shared-memory latency is off the chain; past cap the one model stays in registers
     * and is stored once, when the run ends. */
    if (limit <= 0)
        return 0;
    pcwt_bit_model *at = base;
    pcwt_model_regs cur = pcwt_model_load(at);
    while (t < cap) {
        const pcwt_model_regs next = pcwt_model_load(at + ms);
        const uint32_t bit = pcwt_rc_decode_regs(rc, &cur);
        pcwt_model_put(at, cur);
        if (!bit || ++t >= limit)
            return t;
        cur = next;
        at += ms;
    }
    for (;;) {
        const uint32_t bit = pcwt_rc_decode_regs(rc, &cur);
        if (!bit || ++t >= limit)
            break;
    }
    pcwt_model_put(at, cur);
#else
    while (t < limit && pcwt_rc_decode(rc, &base[pcwt_ec_min(t, cap) * ms]))
        t++;
#endif
    return t;
}

/* Decodes coefficient *dst of an element with MQD mq >= 0: its level distance t with the MAG
 * models mm (none when coded is 0: q = mq implied), mantissa and sign; the sign model from the
 * signs of its left and above neighbours. Sets *found (all ones) when q = mq; returns the sign
 * of *dst (pcwt_ec_sign_of). */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_decode_coef(pcwt_rc_dec *rc, pcwt_ec_raw_reader *raw,
                                              pcwt_bit_model *m, uint32_t ms,
                                              pcwt_bit_model *mm, int mq, int coded, int low,
                                              int left, int above, uint32_t *found, int32_t *dst)
{
    pcwt_bit_model *const sm = &m[pcwt_ec_sign_model(left, above) * ms];
#ifdef __CUDA_ARCH__
    pcwt_model_regs sign = pcwt_model_load(sm); /* ahead of the level bins, which do not touch it */
#endif
    int t = 0;
    if (coded) {
#ifdef __CUDA_ARCH__
        t = pcwt_ec_decode_run(rc, mm, ms, 7, mq + 1);
#else
        if (mq < 8) /* t <= mq + 1: no model index to clamp before the last bin */
            while (pcwt_rc_decode(rc, &mm[t * ms]) && ++t <= mq) {
            }
        else
            while (pcwt_rc_decode(rc, &mm[pcwt_ec_min(t, 7) * ms]) && ++t <= mq) {
            }
#endif
    }
    const int q = mq - t;
    *found |= 0u - (uint32_t)(t == 0);
    if (q < 0) {
        *dst = 0;
        return PCWT_EC_ZERO_SIGN;
    }
    uint32_t v = 1;
    if (q >= 1) {
        v = 2u | pcwt_rc_decode_flat(rc, &m[(PCWT_EC_MANT + pcwt_ec_min(q, 7) - 1) * ms]);
        const int s2 = pcwt_ec_second_bit(low, q), n = q - 1 - s2; /* n raw bits */
        if (s2)
            v = (v << 1) | pcwt_rc_decode_flat(rc, &m[(PCWT_EC_MANT2 + pcwt_ec_min(q, 7) - 2) * ms]);
        if ((low & PCWT_EC_LOW_BITS) && q >= 2) {
            if (q >= 3) {
                v = (v << (n - 2)) | pcwt_ec_raw_get(raw, (uint32_t)(n - 2));
                v = (v << 1) | pcwt_rc_decode_flat(rc, &m[PCWT_EC_LOW1 * ms]);
            }
            v = (v << 1) | pcwt_rc_decode_flat(rc, &m[(PCWT_EC_LOW0 + (v & 1u)) * ms]);
        } else {
            v = (v << n) | pcwt_ec_raw_get(raw, (uint32_t)n);
        }
    }
#ifdef __CUDA_ARCH__
    const uint32_t neg = pcwt_rc_decode_regs(rc, &sign);
    pcwt_model_put(sm, sign);
#else
    const uint32_t neg = pcwt_rc_decode_flat(rc, sm);
#endif
    *dst = (int32_t)((v ^ (0u - neg)) + neg);
    return 2 - 2 * (int)neg;
}

/* An element's coefficients TL, TR (row d0) and BL, BR (row d1) to the band. A GPU thread's
 * stores each take a sector of their own (the lanes of a warp decode as many groups), so a pair
 * goes out as one 8-byte store where the rows allow it. */
static inline PCWT_HD void pcwt_ec_store_element(int32_t *d0, int32_t *d1, const int32_t v[4])
{
#ifdef __CUDA_ARCH__
    if ((((uintptr_t)d0 | (uintptr_t)d1) & 7u) == 0) {
        *(int2 *)d0 = make_int2(v[0], v[1]);
        *(int2 *)d1 = make_int2(v[2], v[3]);
        return;
    }
#endif
    d0[0] = v[0];
    d0[1] = v[1];
    d1[0] = v[2];
    d1[1] = v[3];
}

#ifdef __CUDA_ARCH__
/* The next MQD of a row that the GPU reads through a window (word_window.h): a lane's loads each
 * take a sector of their own, and a load one element ahead arrives late when the elements between
 * are all-zero ones. A word may hold bytes of the neighbouring groups, which are not used. (The
 * CPU reads the bytes where it needs them.) */
static inline __device__ int pcwt_ec_mqd_next(pcwt_gpu_window *r)
{
    const int v = (int)(int8_t)(pcwt_gpu_window_top(r) >> 24);
    pcwt_gpu_window_skip(r, 8);
    return v;
}
#endif

/* An element's MQD to its row: on the GPU gathered into aligned 32-bit words (row[y] with the
 * group's columns gy..ye-1; *w collects the bytes of y's word). */
static inline PCWT_HD void pcwt_ec_put_mqd(int8_t *row, uint32_t y, uint32_t gy, uint32_t ye,
                                           int mq, uint32_t *w)
{
#ifdef __CUDA_ARCH__
    const uint32_t k = (uint32_t)(uintptr_t)(row + y) & 3u; /* byte of the word */
    *w |= (uint32_t)(uint8_t)mq << (8 * k);
    if (k == 3 && y >= gy + 3) {
        *(uint32_t *)(row + y - 3) = *w;
        *w = 0;
    } else if (k == 3 || y + 1 == ye) { /* a word the group shares with its neighbours */
        const uint32_t lo = k - (y - gy < k ? y - gy : k);
        for (uint32_t i = lo; i <= k; i++)
            row[y - k + i] = (int8_t)(*w >> (8 * i));
        *w = 0;
    }
#else
    (void)gy;
    (void)ye;
    (void)w;
    row[y] = (int8_t)mq;
#endif
}

/* An element that pcwt_ec_put_element holds back, to go out with the next one. */
typedef struct pcwt_ec_held {
    int32_t v[4];
    int n;
} pcwt_ec_held;

/* Stores an element's coefficients as pcwt_ec_store_element does (last: the group's last element
 * of the row). On the GPU, where the rows are 16-byte aligned, an element waits in *h for the
 * next one, and the two go out as one 16-byte store per row. */
static inline PCWT_HD void pcwt_ec_put_element(int32_t *d0, int32_t *d1, int last,
                                               const int32_t v[4], pcwt_ec_held *h)
{
#ifdef __CUDA_ARCH__
    if (h->n) {
        *(int4 *)(d0 - 2) = make_int4(h->v[0], h->v[1], v[0], v[1]);
        *(int4 *)(d1 - 2) = make_int4(h->v[2], h->v[3], v[2], v[3]);
        h->n = 0;
        return;
    }
    if (!last && (((uintptr_t)d0 | (uintptr_t)d1) & 15u) == 0) {
        for (int i = 0; i < 4; i++)
            h->v[i] = v[i];
        h->n = 1;
        return;
    }
#else
    (void)last;
    (void)h;
#endif
    pcwt_ec_store_element(d0, d1, v);
}

/* Decodes one entropy-mode group from its range-coder stream a (alen bytes) and raw stream rs
 * (rlen bytes), storing each element's MQD and coefficients as soon as it has them (on the GPU
 * gathered into wider stores); returns 0 when the streams are inconsistent. The contexts of an
 * element need its left, above-left, above and above-right neighbours' MQDs and the signs of the
 * coefficients left of and above its own: the left ones are carried in registers, the MQDs of
 * the row above (written one row earlier) and of the parent row are read ahead
 * (pcwt_ec_mqd_next), and the coefficients above are loaded an element ahead, so that a GPU
 * thread, which waits for each load at its first use, does not wait for memory between the bins
 * of an element. */
/* Inlined where a decoder calls it once per value of b->low, so that each copy knows it. */
static PCWT_EC_INLINE PCWT_HD int pcwt_ec_decode_group(const pcwt_ec_band *b, const pcwt_ec_span *g,
                                               const uint16_t *init, pcwt_bit_model *m, uint32_t ms,
                                               const uint8_t *a, size_t alen, const uint8_t *rs,
                                               size_t rlen)
{
    if (alen && a[alen - 1] == 0)
        return 0; /* trailing zero bytes are never written */
    /* Locals: the MQD stores (int8_t) may alias anything reached through a pointer. */
    int32_t *const coef = b->coef;
    int8_t *const mqd = b->mqd;
    const int8_t *const parent = b->parent;
    const ptrdiff_t cols = b->cols, mcols = b->mcols, pcols = b->pcols;
    const int qmax = b->qmax, exact = b->exact, low = b->low;
    const uint32_t gy = g->gy, ye = g->ye;
    pcwt_ec_models_reset(m, ms, init);
    pcwt_rc_dec rc;
    pcwt_rc_dec_init(&rc, a, alen);
    pcwt_ec_raw_reader raw;
    pcwt_ec_raw_init(&raw, rs, rlen);
    for (uint32_t x = g->gx; x < g->xe; x++) {
        PCWT_EC_ROW_BEGIN(b, x);
        int8_t *const mrow = mqd + (ptrdiff_t)x * mcols;
        const int8_t *const prow = parent ? parent + (ptrdiff_t)(x / 2) * pcols : NULL;
        int32_t *const c0 = coef + (ptrdiff_t)(2 * x) * cols, *const c1 = c0 + cols;
        const int inx = x > g->gx;
        const int8_t *const up = inx ? mrow - mcols : NULL; /* the MQDs of the row above */
        const int32_t *const ab = inx ? c0 - cols : NULL;   /* the coefficients above TL, TR */
        int sl0 = PCWT_EC_ZERO_SIGN, sl1 = PCWT_EC_ZERO_SIGN; /* the left element's TR, BR */
        int ml = PCWT_EC_OUTSIDE, mal = PCWT_EC_OUTSIDE; /* MQDs left and above-left */
        /* what the next element needs from memory (on the GPU the parent row from gy / 2 on and
         * the row above from gy on go through readers) */
#ifdef __CUDA_ARCH__
        /* (used when prow, up) */
        pcwt_gpu_window pr = {0, {0, 0, 0, 0, 1}}, ur = {0, {0, 0, 0, 0, 1}};
        if (prow)
            pcwt_gpu_window_init_fresh(&pr, (const uint8_t *)(prow + gy / 2),
                                       (const uint8_t *)(prow + (ye - 1) / 2 + 1));
        if (up)
            pcwt_gpu_window_init_fresh(&ur, (const uint8_t *)(up + gy), (const uint8_t *)(up + ye));
        int ma = up ? pcwt_ec_mqd_next(&ur) : PCWT_EC_OUTSIDE; /* above */
        int r_next = prow ? pcwt_ec_mqd_next(&pr) : qmax;
        int mar_next = up && gy + 1 < ye ? pcwt_ec_mqd_next(&ur) : PCWT_EC_OUTSIDE;
#else
        int ma = up ? up[gy] : PCWT_EC_OUTSIDE; /* above */
        int r_next = prow ? prow[gy / 2] : qmax;
        int mar_next = up && gy + 1 < ye ? up[gy + 1] : PCWT_EC_OUTSIDE;
#endif
        int32_t ab0_next = ab ? ab[2 * gy] : 0, ab1_next = ab ? ab[2 * gy + 1] : 0;
        uint32_t mw = 0;          /* pcwt_ec_put_mqd's word */
        pcwt_ec_held held = {{0}, 0}; /* pcwt_ec_put_element's element */
        for (uint32_t y = gy; y < ye; y++) {
            const int r = r_next, mar = mar_next;
            const int32_t ab0 = ab0_next, ab1 = ab1_next;
            if (y + 1 < ye) {
#ifdef __CUDA_ARCH__
                if (prow && (y + 1) % 2 == 0)
                    r_next = pcwt_ec_mqd_next(&pr);
                mar_next = up && y + 2 < ye ? pcwt_ec_mqd_next(&ur) : PCWT_EC_OUTSIDE;
#else
                r_next = prow ? prow[(y + 1) / 2] : qmax;
                mar_next = up && y + 2 < ye ? up[y + 2] : PCWT_EC_OUTSIDE;
#endif
                ab0_next = ab ? ab[2 * y + 2] : 0;
                ab1_next = ab ? ab[2 * y + 3] : 0;
            }
            int mq = -1;
            if (r >= 0) {
                int ec, zc;
                pcwt_ec_mqd_context_of(ml, mal, ma, mar, r, &ec, &zc);
                if (!pcwt_rc_decode(&rc, &m[(PCWT_EC_ZERO + zc) * ms]))
                    mq = r - pcwt_ec_decode_run(&rc, &m[(PCWT_EC_MQD + ec * 4) * ms], ms, 3, r);
            }
            pcwt_ec_put_mqd(mrow, y, gy, ye, mq, &mw);
            ml = mq;
            mal = ma;
            ma = mar;
            int32_t *const d0 = c0 + 2 * y, *const d1 = c1 + 2 * y;
            int32_t v[4] = {0, 0, 0, 0};
            if (mq < 0) {
                pcwt_ec_put_element(d0, d1, y + 1 == ye, v, &held);
                sl0 = sl1 = PCWT_EC_ZERO_SIGN;
                continue;
            }
            const int sa0 = pcwt_ec_sign_of(ab0), sa1 = pcwt_ec_sign_of(ab1);
            pcwt_bit_model *const mm = &m[(PCWT_EC_MAG + pcwt_ec_min(mq, 3) * 16) * ms];
            const uint32_t mf = 8 * ms; /* MAG models of found = 1 follow those of found = 0 */
            uint32_t found = 0; /* all ones once found */
            const int s0 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm, mq, 1, low, sl0, sa0, &found,
                                               &v[0]);
            const int s1 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm + (found & mf), mq, 1, low, s0,
                                               sa1, &found, &v[1]);
            const int s2 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm + (found & mf), mq, 1, low, sl1,
                                               s0, &found, &v[2]);
            const int s3 = pcwt_ec_decode_coef(&rc, &raw, m, ms, mm + (found & mf), mq,
                                               !exact || found, low, s2, s1, &found, &v[3]);
            pcwt_ec_put_element(d0, d1, y + 1 == ye, v, &held);
            sl0 = s1;
            sl1 = s3;
        }
        PCWT_EC_ROW_END(b, x);
        if (pcwt_ec_raw_pos(&raw, rs) > 8 * (uint64_t)rlen)
            return 0; /* stops a hostile group early */
    }
    /* Both streams must end exactly where the encoder ended them. */
    if (rc.code >= rc.range || pcwt_rc_dec_taken(&rc, a) < alen)
        return 0;
    const uint64_t pos = pcwt_ec_raw_pos(&raw, rs);
    if ((pos + 7) / 8 != rlen)
        return 0;
    const uint32_t pad = (uint32_t)((8 - pos % 8) % 8);
    if (pad && pcwt_ec_raw_get(&raw, pad) != 0)
        return 0;
    return 1;
}

#endif /* PCWT_EC_GROUP_CODER_H */
