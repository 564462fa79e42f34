// jpegls_chain_step.h - one step of a JPEG-LS context chain (T.87 A.6 / A.7 for the regular
// contexts, A.7.2 for the two run interruption contexts) and the chunked schedule built on it.
//
// A chain's step i codes one sample from the context's state before it and moves the state on.
// N is not data: it starts at 1, grows by one a step and is halved when it reaches RESET (64), so
// it is a function of i alone (jls_chain_n). The rest of the state (A, B, C; A and Nn for an
// interruption context) is what a step needs from the steps before it.
//
// The chunked schedule: a chain is cut into chunks of kJlsChunk samples, and every chunk is coded
// at once from a guessed start state, reached by replaying the kJlsWarm samples before the chunk
// from a neutral state (B and C track the context's bias and A its mean error, so two states that
// see the same samples soon become equal). Then every chunk whose guessed start differs from the
// end state its neighbour reached is coded again from that state (rejoin), and finally one thread
// per chain walks its chunks with the true state (fix), from the first chunk whose neighbour's
// end state the rejoin changed. Recoding (jls_chunk_recode) stops at the
// first checkpoint (every kJlsCheck samples) where the new state equals the stored one: from there
// on both codings agree. So the codewords are always the sequential encoder's; only the time
// depends on the guesses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "jpegls_code.h"

constexpr uint32_t kJlsChunk = 1024; // samples of a chain coded by one thread in the first pass
constexpr uint32_t kJlsWarm = 256;   // samples replayed before a chunk to reach its start state
constexpr uint32_t kJlsCheck = 32;   // checkpoint interval of the speculative states
constexpr uint32_t kJlsChecks = kJlsChunk / kJlsCheck;

struct JlsChainState {
    int32_t a, b, c, nn; // regular contexts use A, B, C; interruption contexts A and Nn
};

JLS_HD inline bool jls_state_eq(const JlsChainState &x, const JlsChainState &y)
{
    return x.a == y.a && x.b == y.b && x.c == y.c && x.nn == y.nn;
}

// N before step i of a chain (RESET 64).
JLS_HD inline int32_t jls_chain_n(uint32_t i)
{
    return i < 64 ? (int32_t)i + 1 : 33 + (int32_t)((i - 64) & 31u);
}

JLS_HD inline JlsChainState jls_chain_init(const JlsParams &p)
{
    return JlsChainState{p.a_init, 0, 0, 0};
}

JLS_HD inline int32_t jls_bit_length(uint32_t v) // position of the highest set bit + 1
{
#ifdef __CUDA_ARCH__
    return 32 - __clz((int)v);
#else
    return v ? 32 - __builtin_clz(v) : 0;
#endif
}

// The least k with n * 2^k >= a (A.5.1), from the bit lengths and one correction.
JLS_HD inline uint32_t jls_golomb_k(int32_t n, int32_t a)
{
    int32_t k = jls_bit_length((uint32_t)a) - jls_bit_length((uint32_t)n);
    if (k < 0)
        k = 0;
    if ((n << k) < a)
        k++;
    return (uint32_t)k;
}

// LG(k, glimit) of m (A.5.3) as a packed codeword.
JLS_HD inline uint32_t jls_golomb_code(uint32_t m, uint32_t k, uint32_t glimit,
                                                    uint32_t qbpp)
{
    const uint32_t high = m >> k, max_high = glimit - qbpp - 1u;
    if (high < max_high)
        return jls_code_pack(0, high, k + 1u, (1u << k) | (m & ((1u << k) - 1u)));
    return jls_code_pack(0, max_high, qbpp + 1u, (1u << qbpp) | ((m - 1u) & ((1u << qbpp) - 1u)));
}

JLS_HD inline int32_t jls_mod_range(int32_t e, int32_t range)
{
    const int32_t half = range >> 1;
    return ((e + half) & (range - 1)) - half;
}

// Step i of a regular context's chain: record x | px << 16 | negate << 32.
JLS_HD inline uint32_t jls_regular_step(const JlsParams &p, JlsChainState &s,
                                                     uint32_t i, uint64_t rec)
{
    constexpr int32_t kMinC = -128, kMaxC = 127;
    const int32_t x = (int32_t)(rec & 0xFFFFu), px = (int32_t)((rec >> 16) & 0xFFFFu);
    const bool neg = (rec >> 32) & 1u;
    int32_t n = jls_chain_n(i);
    const uint32_t k = jls_golomb_k(n, s.a);
    int32_t pred = neg ? px - s.c : px + s.c;
    pred = pred < 0 ? 0 : (pred > p.maxval ? p.maxval : pred);
    const int32_t e = jls_mod_range(neg ? pred - x : x - pred, p.range);
    const int32_t em = (k == 0 && 2 * s.b + n - 1 < 0) ? -e - 1 : e;
    const uint32_t m = em >= 0 ? 2u * (uint32_t)em : 2u * (uint32_t)(-em) - 1u;
    s.a += e >= 0 ? e : -e;
    s.b += e;
    if (n == 64) {
        s.a >>= 1;
        s.b = s.b >= 0 ? s.b >> 1 : -((1 - s.b) >> 1);
        n >>= 1;
    }
    n++;
    if (s.b + n <= 0) {
        s.b += n;
        if (s.b <= -n)
            s.b = 1 - n;
        if (s.c > kMinC)
            s.c--;
    } else if (s.b > 0) {
        s.b -= n;
        if (s.b > 0)
            s.b = 0;
        if (s.c < kMaxC)
            s.c++;
    }
    return jls_golomb_code(m, k, (uint32_t)p.limit, (uint32_t)p.qbpp);
}

// Step i of a run interruption context's chain (ritype 0 or 1): record x | px << 16 |
// negate << 32 | J[RUNindex] << 33.
JLS_HD inline uint32_t jls_interruption_step(const JlsParams &p, int32_t ritype,
                                                          JlsChainState &s, uint32_t i, uint64_t rec)
{
    const int32_t x = (int32_t)(rec & 0xFFFFu), px = (int32_t)((rec >> 16) & 0xFFFFu);
    const bool neg = (rec >> 32) & 1u;
    const uint32_t glimit = (uint32_t)p.limit - (uint32_t)(rec >> 33) - 1u;
    const int32_t n = jls_chain_n(i);
    const int32_t e = jls_mod_range(neg ? px - x : x - px, p.range);
    const uint32_t k = jls_golomb_k(n, s.a + (ritype ? n >> 1 : 0));
    int32_t map;
    if (e < 0)
        map = (k != 0 || 2 * s.nn >= n) ? 1 : 0;
    else
        map = (k == 0 && e > 0 && 2 * s.nn < n) ? 1 : 0;
    const int32_t em = 2 * (e < 0 ? -e : e) - ritype - map;
    if (e < 0)
        s.nn++;
    s.a += (em + 1 - ritype) >> 1;
    if (n == 64) {
        s.a >>= 1;
        s.nn >>= 1;
    }
    return jls_golomb_code((uint32_t)em, k, glimit, (uint32_t)p.qbpp);
}

// Step i of the chain of context slot `slot` (0..363 regular, 364/365 interruption).
JLS_HD inline uint32_t jls_chain_step(const JlsParams &p, uint32_t slot,
                                                   JlsChainState &s, uint32_t i, uint64_t rec)
{
    return slot < kJlsRunCtx ? jls_regular_step(p, s, i, rec)
                             : jls_interruption_step(p, (int32_t)(slot - kJlsRunCtx), s, i, rec);
}

// Calls f(i, recs[i]) for i in [begin, end), loading the records of the next group of 8 while a
// group is coded: the steps are serial, and this hides the loads' latency behind them.
template <typename F>
JLS_HD inline void jls_stream(const uint64_t *recs, uint32_t begin, uint32_t end, F f)
{
    constexpr uint32_t kGroup = 8;
    uint64_t nxt[kGroup];
JLS_UNROLL
    for (uint32_t u = 0; u < kGroup; u++)
        nxt[u] = begin + u < end ? recs[begin + u] : 0;
    for (uint32_t i = begin; i < end; i += kGroup) {
        uint64_t cur[kGroup];
JLS_UNROLL
        for (uint32_t u = 0; u < kGroup; u++) {
            cur[u] = nxt[u];
            nxt[u] = i + kGroup + u < end ? recs[i + kGroup + u] : 0;
        }
JLS_UNROLL
        for (uint32_t u = 0; u < kGroup; u++)
            if (i + u < end)
                f(i + u, cur[u]);
    }
}

// First pass, one chunk: `recs`/`codes` are the chain's (index 0 = its first sample), n its
// length, j the chunk. Writes the chunk's codewords from the guessed start state, the states at
// its checkpoints (checks[q] = state before sample j * kJlsChunk + (q + 1) * kJlsCheck; none when
// checks is null, as for chunk 0, whose start is exact), and returns the guessed start state in
// *start and the end state in *end.
JLS_HD inline void jls_chunk_speculate(const JlsParams &p, uint32_t slot, const uint64_t *recs,
                                       uint32_t *codes, uint32_t n, uint32_t j,
                                       JlsChainState *checks, JlsChainState *start,
                                       JlsChainState *end)
{
    const uint32_t begin = j * kJlsChunk, stop = n - begin < kJlsChunk ? n : begin + kJlsChunk;
    const uint32_t w0 = begin > kJlsWarm ? begin - kJlsWarm : 0;
    JlsChainState s = jls_chain_init(p); // exact when the warm-up starts at the chain's start
    jls_stream(recs, w0, begin, [&](uint32_t i, uint64_t rec) { (void)jls_chain_step(p, slot, s, i, rec); });
    *start = s;
    jls_stream(recs, begin, stop, [&](uint32_t i, uint64_t rec) {
        if (checks && i > begin && (i - begin) % kJlsCheck == 0)
            checks[(i - begin) / kJlsCheck - 1] = s;
        codes[i] = jls_chain_step(p, slot, s, i, rec);
    });
    *end = s;
}

// Codes chunk j again from state s (the end state of chunk j - 1, when that differs from the
// chunk's start state): every sample up to the first checkpoint where s equals the state stored
// there, overwriting the stored states it passes, so that the chunk's start, checkpoints, end and
// codewords stay one trajectory. Returns the samples recoded; s becomes the chunk's end state.
JLS_HD inline uint32_t jls_chunk_recode(const JlsParams &p, uint32_t slot,
                                                     const uint64_t *recs, uint32_t *codes,
                                                     uint32_t n, uint32_t j, JlsChainState &s,
                                                     JlsChainState *start, JlsChainState *checks,
                                                     JlsChainState end)
{
    if (jls_state_eq(s, *start)) {
        s = end;
        return 0;
    }
    *start = s;
    const uint32_t begin = j * kJlsChunk, stop = n - begin < kJlsChunk ? n : begin + kJlsChunk;
    for (uint32_t i0 = begin; i0 < stop; i0 += kJlsCheck) {
        if (i0 > begin) {
            JlsChainState &ck = checks[(i0 - begin) / kJlsCheck - 1];
            if (jls_state_eq(s, ck)) {
                s = end;
                return i0 - begin;
            }
            ck = s;
        }
        const uint32_t i1 = stop - i0 < kJlsCheck ? stop : i0 + kJlsCheck;
        jls_stream(recs, i0, i1, [&](uint32_t i, uint64_t rec) { codes[i] = jls_chain_step(p, slot, s, i, rec); });
    }
    return stop - begin;
}

// Last pass, one chain of `chunks` chunks: walks them in order with the true state from chunk
// `first` on (1 after the first pass; after the rejoin pass, the chunk after the first one whose end
// state changed: the chunks before it start where their neighbours end), recoding where a chunk's
// start state is not it. ends[j] is chunk j's end state. Returns the samples recoded.
JLS_HD inline uint32_t jls_chain_fix(const JlsParams &p, uint32_t slot, const uint64_t *recs,
                                     uint32_t *codes, uint32_t n, uint32_t chunks, uint32_t first,
                                     JlsChainState *checks, JlsChainState *starts,
                                     const JlsChainState *ends)
{
    uint32_t recoded = 0;
    if (first >= chunks)
        return 0;
    JlsChainState s = ends[first - 1];
    for (uint32_t j = first; j < chunks; j++)
        recoded += jls_chunk_recode(p, slot, recs, codes, n, j, s, starts + j,
                                    checks + (size_t)j * kJlsChecks, ends[j]);
    return recoded;
}
