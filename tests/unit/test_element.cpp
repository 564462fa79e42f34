// Element coding against the seed's worked examples (Figs. 3.13 and 3.14) and its edge cases.
#include <gtest/gtest.h>

extern "C" {
#include "element.h"
}

#include <vector>

namespace {

struct Coded { std::vector<uint8_t> bytes; uint32_t bits; };

Coded encode_one(int r, int m, const int32_t c[4])
{
    Coded out;
    out.bytes.assign(32, 0);
    pcwt_bitwriter w;
    pcwt_bw_init(&w, out.bytes.data());
    pcwt_element_encode(&w, r, m, c);
    out.bits = pcwt_element_bits(r, m);
    out.bytes.resize(static_cast<size_t>(pcwt_bw_flush(&w) - out.bytes.data()));
    return out;
}

uint64_t as_number(const Coded &c) // the first c.bits bits, MSB first
{
    uint64_t v = 0;
    for (uint32_t k = 0; k < c.bits; k++)
        v = (v << 1) | ((c.bytes[k / 8] >> (7 - k % 8)) & 1u);
    return v;
}

void expect_roundtrip(const Coded &c, int r, int m, const int32_t coef[4])
{
    pcwt_bitreader rd;
    pcwt_br_init(&rd, c.bytes.data(), c.bytes.size());
    int32_t back[4];
    EXPECT_EQ(pcwt_element_decode(&rd, r, back), m);
    EXPECT_EQ(rd.consumed, c.bits);
    for (int k = 0; k < 4; k++)
        EXPECT_EQ(back[k], m >= 0 ? coef[k] : 0);
}

TEST(Element, Fig313)
{
    const int32_t c[4] = {28, -7, 35, -23};
    const Coded e = encode_one(8, 5, c);
    EXPECT_EQ(e.bits, 32u);
    EXPECT_EQ(as_number(e), 0x1723A3AEu);
    expect_roundtrip(e, 8, 5, c);
}

TEST(Element, Fig314)
{
    const int32_t c[4] = {-5, -4, 0, 1};
    const Coded e = encode_one(5, 2, c);
    EXPECT_EQ(e.bits, 20u);
    EXPECT_EQ(as_number(e), 0x1A803u);
    expect_roundtrip(e, 5, 2, c);
}

TEST(Element, InsignificantElementIsRPlusOneZeros)
{
    const int32_t z[4] = {0, 0, 0, 0};
    const Coded e = encode_one(6, -1, z);
    EXPECT_EQ(e.bits, 7u);
    EXPECT_EQ(as_number(e), 0u);
    expect_roundtrip(e, 6, -1, z);
    EXPECT_EQ(pcwt_element_bits(-1, -1), 0u); // nothing at all under an all-zero parent
}

TEST(Element, LargestMagnitudes)
{
    const int32_t c[4] = {2147483647, -2147483647, 0, 1};
    const Coded e = encode_one(30, 30, c);
    EXPECT_EQ(e.bits, 1u + 4u * 32u);
    expect_roundtrip(e, 30, 30, c);
}

TEST(Element, NegativeZeroIsRejected)
{
    // MQD 0 under r = 0: "1", then coefficient 0 as magnitude 0 with sign 1 (invalid): 101...
    const uint8_t bytes[2] = {0xA0, 0x00};
    pcwt_bitreader rd;
    pcwt_br_init(&rd, bytes, sizeof bytes);
    int32_t c[4];
    EXPECT_EQ(pcwt_element_decode(&rd, 0, c), -2);
}

} // namespace
