// The entropy profile's range coder on its own (codec/src/rangecoder.h): round trips of random bits
// with skewed models, the model update rule, compression near the entropy, overflow reporting, the
// lazy renormalisation's bytes and the capacity of a finished stream.
#include <gtest/gtest.h>

extern "C" {
#include "rangecoder.h"
}
#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <vector>

TEST(RangeCoder, RandomBitsWithSkewedModelsRoundTrip)
{
    Rng rng(5);
    for (int trial = 0; trial < 200; trial++) {
        const size_t n = rng.below(5000);
        std::vector<uint32_t> bits(n), ctx(n);
        std::vector<uint32_t> skew(16);
        for (auto &s : skew)
            s = rng.below(1001); // P(1) in thousandths, 0 and 1000 included
        for (size_t i = 0; i < n; i++) {
            ctx[i] = rng.below(16);
            bits[i] = rng.below(1000) < skew[ctx[i]] ? 1u : 0u;
        }
        std::vector<uint8_t> buf(n / 4 + 64);
        pcwt_bit_model em[16], dm[16];
        for (int k = 0; k < 16; k++) {
            em[k].p = dm[k].p = static_cast<uint16_t>(PCWT_RC_PMIN + rng.below(PCWT_RC_PMAX - PCWT_RC_PMIN + 1));
            em[k].s = dm[k].s = static_cast<uint16_t>(1 + rng.below(6));
        }
        pcwt_rc_enc e;
        pcwt_rc_enc_init(&e, buf.data(), buf.size());
        for (size_t i = 0; i < n; i++)
            pcwt_rc_encode(&e, &em[ctx[i]], bits[i]);
        const size_t len = pcwt_rc_enc_finish(&e, buf.data());
        ASSERT_FALSE(e.overflow);
        ASSERT_LE(len, buf.size());
        if (len)
            EXPECT_NE(buf[len - 1], 0) << "trailing zero bytes are dropped";
        // an exactly sized copy: any read past the end would be caught by ASan
        std::vector<uint8_t> exact(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(len));
        pcwt_rc_dec d;
        pcwt_rc_dec_init(&d, exact.data(), exact.size());
        for (size_t i = 0; i < n; i++)
            ASSERT_EQ(pcwt_rc_decode(&d, &dm[ctx[i]]), bits[i]) << "trial " << trial << " bit " << i;
        EXPECT_LT(d.code, d.range);
        EXPECT_EQ(d.p, exact.data() + exact.size()) << "the decoder takes every byte written";
        for (int k = 0; k < 16; k++) {
            EXPECT_EQ(em[k].p, dm[k].p);
            EXPECT_GE(em[k].p, PCWT_RC_PMIN);
            EXPECT_LE(em[k].p, PCWT_RC_PMAX);
        }
    }
}

TEST(RangeCoder, ModelUpdateFollowsTheRuleForEveryState)
{
    // The rule of FORMAT.md Sec. 5 in its two-branch form, against the coder's update (both
    // forms: with a branch on the bit and without), for every p and shift a model can hold.
    for (uint32_t p = PCWT_RC_PMIN; p <= PCWT_RC_PMAX; p++)
        for (uint32_t s = 1; s <= PCWT_RC_MAXSHIFT; s++)
            for (uint32_t bit = 0; bit < 2; bit++) {
                const uint32_t want = bit ? p + ((PCWT_RC_PMAX - p) >> s) : p - ((p - PCWT_RC_PMIN) >> s);
                const uint32_t next_s = s < PCWT_RC_MAXSHIFT ? s + 1 : s;
                pcwt_bit_model a{static_cast<uint16_t>(p), static_cast<uint16_t>(s)}, b = a;
                pcwt_model_update(&a, bit);
                pcwt_model_update_flat(&b, 0u - bit);
                ASSERT_EQ(a.p, want) << "p " << p << " s " << s << " bit " << bit;
                ASSERT_EQ(b.p, want) << "p " << p << " s " << s << " bit " << bit << " (flat)";
                ASSERT_EQ(a.s, next_s);
                ASSERT_EQ(b.s, next_s);
            }
}

TEST(RangeCoder, CompressesSkewedBitsNearTheirEntropy)
{
    Rng rng(9);
    const size_t n = 200000;
    std::vector<uint8_t> buf(n / 8 + 64);
    pcwt_bit_model m{16384, 1};
    pcwt_rc_enc e;
    pcwt_rc_enc_init(&e, buf.data(), buf.size());
    for (size_t i = 0; i < n; i++)
        pcwt_rc_encode(&e, &m, rng.below(100) < 5 ? 1u : 0u);
    const size_t len = pcwt_rc_enc_finish(&e, buf.data());
    const double entropy_bytes = n * (-(0.05 * std::log2(0.05) + 0.95 * std::log2(0.95))) / 8;
    EXPECT_LT(len, entropy_bytes * 1.06);
    EXPECT_GT(len, entropy_bytes * 0.97);
}

TEST(RangeCoder, OverflowIsReportedNotWritten)
{
    std::vector<uint8_t> buf(16, 0xAB);
    pcwt_bit_model m{16384, 6};
    pcwt_rc_enc e;
    pcwt_rc_enc_init(&e, buf.data(), 8);
    Rng rng(3);
    for (int i = 0; i < 1000; i++)
        pcwt_rc_encode(&e, &m, rng.below(2));
    (void)pcwt_rc_enc_finish(&e, buf.data());
    EXPECT_TRUE(e.overflow);
    for (size_t k = 8; k < buf.size(); k++)
        EXPECT_EQ(buf[k], 0xAB) << "byte " << k << " past the capacity was written";
}

// The deferred renormalisation (pcwt_rc_lazy, the GPU range coders') writes the bytes of
// pcwt_rc_encode, with its bytes taken at any points: long runs of ones and skewed models make
// carries through 0xFF bytes common, and small rooms the overflow rule.
TEST(RangeCoder, LazyRenormalisationMakesTheSameBytes)
{
    Rng rng(31);
    int overflowed = 0, compared = 0;
    for (int round = 0; round < 3000; round++) {
        const uint32_t n = 1 + rng.below(round % 10 == 0 ? 4000 : 300);
        const uint32_t skew = rng.below(4);
        pcwt_bit_model m1[8], m2[8];
        for (int k = 0; k < 8; k++) {
            m1[k].p = m2[k].p = static_cast<uint16_t>(PCWT_RC_PMIN + rng.below(PCWT_RC_PMAX - PCWT_RC_PMIN + 1));
            m1[k].s = m2[k].s = static_cast<uint16_t>(1 + rng.below(6));
        }
        const size_t cap = 1 + rng.below(2 * n / 8 + 20);
        std::vector<uint8_t> a(cap + 64, 0x5A), b(cap + 64, 0x5A);
        pcwt_rc_enc e;
        pcwt_rc_enc_init(&e, a.data(), cap);
        pcwt_rc_lazy z;
        pcwt_rc_lazy_init(&z, b.data(), cap);
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t k = rng.below(8);
            const uint32_t bit = skew == 0 ? rng.below(2) : skew == 1 ? (rng.below(50) != 0) : rng.below(100) < 3;
            pcwt_rc_encode(&e, &m1[k], bit);
            pcwt_rc_lazy_encode(&z, pcwt_model_p(&m2[k]), bit);
            pcwt_model_update(&m2[k], bit);
            if (rng.below(16) == 0)
                pcwt_rc_lazy_take_all(&z);
        }
        pcwt_rc_lazy_take_all(&z);
        const size_t la = pcwt_rc_enc_finish(&e, a.data()), lb = pcwt_rc_enc_finish(&z.e, b.data());
        ASSERT_EQ(e.overflow, z.e.overflow) << "round " << round;
        overflowed += e.overflow;
        ASSERT_EQ(la, lb) << "round " << round;
        ASSERT_TRUE(a == b) << "round " << round; // the same bytes, none past the room
        compared++;
    }
    EXPECT_GT(overflowed, 100);
    EXPECT_GT(compared - overflowed, 1000);
}

TEST(RangeCoder, CapacityOfTheFinishedLengthIsEnough)
{
    // Trailing zero bytes past the capacity are not an overflow: a stream re-coded with exactly
    // its finished length as capacity comes out identical (the raw/entropy choice of a group
    // depends on that, FORMAT.md Sec. 5.1).
    Rng rng(4);
    for (int trial = 0; trial < 300; trial++) {
        const size_t n = rng.below(300);
        std::vector<uint32_t> bits(n);
        for (auto &b : bits)
            b = rng.below(100) < 3 + trial % 50 ? 1u : 0u;
        auto run = [&](std::vector<uint8_t> &buf, size_t cap, bool *overflow) {
            pcwt_bit_model m{16384, 3};
            pcwt_rc_enc e;
            pcwt_rc_enc_init(&e, buf.data(), cap);
            for (uint32_t b : bits)
                pcwt_rc_encode(&e, &m, b);
            const size_t len = pcwt_rc_enc_finish(&e, buf.data());
            *overflow = e.overflow != 0;
            return len;
        };
        std::vector<uint8_t> full(n + 16), tight(n + 16, 0xCD);
        bool ov;
        const size_t len = run(full, full.size(), &ov);
        ASSERT_FALSE(ov);
        EXPECT_EQ(run(tight, len, &ov), len) << "trial " << trial;
        EXPECT_FALSE(ov) << "trial " << trial << ": capacity " << len;
        EXPECT_TRUE(std::equal(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len), tight.begin()));
        EXPECT_EQ(tight[len], 0xCD) << "written past the capacity";
        if (len > 0) {
            run(tight, len - 1, &ov);
            EXPECT_TRUE(ov) << "trial " << trial << ": one byte short must overflow";
        }
    }
}
