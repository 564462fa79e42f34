// The GPU JPEG-LS encoder's chunked context chains (cuda/jpegls_chain_step.h), run here on the
// host in the order the kernels run them: speculate every chunk, rejoin every chunk from its
// neighbour's end state (reading the first pass's states, writing new ones), fix each chain with
// the true state from the first chunk after one whose end state the rejoin changed. The codewords must equal the serial replay of the chain, including when start
// states are wrong on purpose (a chunk coded from a made-up state, as a bad guess would).
#include "../../cuda/jpegls_chain_step.h"
#include "unit/test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

// Records of one context: sample x, prediction px and sign, in regimes of changing bias and
// noise, so that guessed states are often wrong; interruption records also carry J (0..15).
std::vector<uint64_t> chain_records(uint32_t n, uint32_t bits, bool interruption, Rng &rng)
{
    const uint32_t maxval = (1u << bits) - 1;
    std::vector<uint64_t> r(n);
    int32_t bias = 0, noise = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (i % 701 == 0) {
            bias = int32_t(rng.next() % 61) - 30;
            noise = 1 << (rng.next() % (bits < 6 ? bits : 6));
        }
        const uint32_t px = rng.next() & maxval;
        int64_t x = int64_t(px) + bias + int32_t(rng.next() % uint32_t(2 * noise + 1)) - noise;
        x = x < 0 ? 0 : (x > maxval ? maxval : x);
        uint64_t rec = uint64_t(x) | uint64_t(px) << 16 | uint64_t(rng.next() & 1) << 32;
        if (interruption)
            rec |= uint64_t(rng.next() % 16) << 33;
        r[i] = rec;
    }
    return r;
}

std::vector<uint32_t> serial(const JlsParams &p, uint32_t slot, const std::vector<uint64_t> &r)
{
    std::vector<uint32_t> codes(r.size());
    JlsChainState s = jls_chain_init(p);
    for (uint32_t i = 0; i < r.size(); i++)
        codes[i] = jls_chain_step(p, slot, s, i, r[i]);
    return codes;
}

// The three passes; `sabotage`: every third chunk after the first is coded from a made-up state
// after the first pass. `rejoin`: whether the second pass runs. Returns the samples the last pass
// recoded.
uint32_t chunked(const JlsParams &p, uint32_t slot, const std::vector<uint64_t> &r,
                 std::vector<uint32_t> &codes, bool sabotage, bool rejoin)
{
    const uint32_t n = uint32_t(r.size()), chunks = (n + kJlsChunk - 1) / kJlsChunk;
    codes.assign(n, 0xDEADBEEFu);
    std::vector<JlsChainState> checks(size_t(chunks) * kJlsChecks), starts(chunks), ends(chunks);
    for (uint32_t j = 0; j < chunks; j++)
        jls_chunk_speculate(p, slot, r.data(), codes.data(), n, j,
                            j ? checks.data() + size_t(j) * kJlsChecks : nullptr, &starts[j], &ends[j]);
    if (sabotage)
        for (uint32_t j = 1; j < chunks; j += 3) {
            JlsChainState bad{p.a_init * 5 + int32_t(j), -3, 100 - int32_t(j % 200), 2};
            if (slot < kJlsRunCtx)
                bad.nn = 0;
            else
                bad.b = bad.c = 0;
            (void)jls_chunk_recode(p, slot, r.data(), codes.data(), n, j, bad, &starts[j],
                                   checks.data() + size_t(j) * kJlsChecks, ends[j]);
            ends[j] = bad; // the made-up trajectory's end
        }
    uint32_t first = 1; // the chunk the last pass starts from
    if (rejoin) {
        std::vector<JlsChainState> next = ends;
        first = UINT32_MAX;
        for (uint32_t j = 1; j < chunks; j++) {
            JlsChainState s = ends[j - 1];
            (void)jls_chunk_recode(p, slot, r.data(), codes.data(), n, j, s, &starts[j],
                                   checks.data() + size_t(j) * kJlsChecks, ends[j]);
            next[j] = s;
            if (j + 1 < chunks && !jls_state_eq(s, ends[j]) && j + 1 < first)
                first = j + 1;
        }
        ends = next;
    }
    return jls_chain_fix(p, slot, r.data(), codes.data(), n, chunks, first, checks.data(),
                         starts.data(), ends.data());
}

TEST(JpeglsChainSchedule, ChunkedCodewordsEqualSerial)
{
    Rng rng(21);
    const uint32_t lengths[] = {1, 31, 32, 33, 64, 65, 1023, 1024, 1025, 1056, 2048, 2049, 5000, 70001};
    const uint32_t slots[] = {0, 3, 180, 363, kJlsRunCtx, kJlsRunCtx + 1};
    uint32_t fixed = 0;
    for (uint32_t bits : {2u, 5u, 8u, 12u, 16u})
        for (uint32_t n : lengths)
            for (uint32_t slot : slots)
                for (int mode = 0; mode < 3; mode++) {
                    const JlsParams p = jls_gpu_params(bits);
                    const std::vector<uint64_t> r = chain_records(n, bits, slot >= kJlsRunCtx, rng);
                    const std::vector<uint32_t> want = serial(p, slot, r);
                    std::vector<uint32_t> got;
                    fixed += chunked(p, slot, r, got, mode > 0, mode < 2);
                    ASSERT_EQ(got, want) << "bits " << bits << " length " << n << " slot " << slot
                                         << " mode " << mode;
                }
    // the made-up states reached the last pass, which recoded from the true ones
    EXPECT_GT(fixed, 0u);
}

// N is a function of the step (RESET 64): 1, 2, ... 64, then 33 ... 64 over and over.
TEST(JpeglsChainSchedule, NFollowsTheResets)
{
    int32_t n = 1;
    for (uint32_t i = 0; i < 1000; i++) {
        ASSERT_EQ(jls_chain_n(i), n) << i;
        if (n == 64)
            n >>= 1;
        n++;
    }
}

} // namespace
