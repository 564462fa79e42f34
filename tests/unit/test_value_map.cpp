// Value maps on their own (codec/src/value_map.c, docs/FORMAT.md Sec. 5.5): the set of values of
// a plane built, written and read back exactly for 1, 2, 65536 and the most values, sparse and
// dense, signed and unsigned; ranks and back; the encoder's decision; damaged maps refused with a
// message, limits checked before allocation; a value plane's map and ranks from the stored values
// the offset's estimate marked, with and without the offset, the same as from its samples.
#include <gtest/gtest.h>

extern "C" {
#include "offset.h"
#include "value_map.h"
}
#include "test_util.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace {

struct Map {
    pcwt_value_map m{};
    ~Map() { pcwt_value_map_free(&m); }
};

std::vector<uint8_t> write_map(const pcwt_value_map &m)
{
    std::vector<uint8_t> buf(pcwt_value_map_bound(&m));
    size_t n = 0;
    EXPECT_EQ(pcwt_value_map_write(&m, buf.data(), buf.size(), &n), PCWT_OK);
    buf.resize(n);
    return buf;
}

// A plane of rows x cols (row pitch cols + 2, the extra columns holding other values) with the
// given values in random positions, each at least once.
std::vector<int32_t> plane_of(const std::vector<int32_t> &values, uint32_t rows, uint32_t cols, Rng &rng)
{
    const size_t stride = cols + 2;
    std::vector<int32_t> p(stride * rows, 12345678);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            const size_t i = static_cast<size_t>(r) * cols + c;
            p[r * stride + c] = i < values.size() ? values[i] : values[rng.below(static_cast<uint32_t>(values.size()))];
        }
    return p;
}

void round_trip(const std::vector<int32_t> &values, uint32_t rows, uint32_t cols, uint64_t seed)
{
    Rng rng(seed);
    std::vector<int32_t> plane = plane_of(values, rows, cols, rng);
    const std::vector<int32_t> orig = plane;
    const size_t stride = cols + 2;
    Map enc;
    ASSERT_EQ(pcwt_value_map_build(&enc.m, plane.data(), stride, rows, cols), PCWT_OK);
    std::set<int32_t> want(values.begin(), values.end());
    ASSERT_EQ(enc.m.count, want.size());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), enc.m.values));
    const std::vector<uint8_t> coded = write_map(enc.m);
    pcwt_value_map_to_ranks(&enc.m, plane.data(), stride, rows, cols);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            const int32_t k = plane[r * stride + c];
            ASSERT_TRUE(k >= 0 && static_cast<uint32_t>(k) < enc.m.count);
            ASSERT_EQ(enc.m.values[k], orig[r * stride + c]);
        }
    // Read from an exactly sized copy followed by other payload bytes: the map's length is found.
    std::vector<uint8_t> payload = coded;
    payload.push_back(0x5A);
    Map dec;
    size_t used = 0;
    char err[200] = "";
    ASSERT_EQ(pcwt_value_map_read(&dec.m, payload.data(), payload.size(), uint64_t{rows} * cols, &used, err,
                                  sizeof err),
              PCWT_OK)
        << err;
    EXPECT_EQ(used, coded.size());
    ASSERT_EQ(dec.m.count, enc.m.count);
    EXPECT_TRUE(std::equal(dec.m.values, dec.m.values + dec.m.count, enc.m.values));
    ASSERT_EQ(pcwt_value_map_from_ranks(&dec.m, plane.data(), stride, rows, cols, err, sizeof err), PCWT_OK);
    EXPECT_EQ(plane, orig) << "the extra columns are left alone, the samples come back";
}

} // namespace

// What the encoder does with a value plane's stored values (pcwt_offset_mark_used): the map from
// them and the ranks with the offset in one pass, against the offset applied, then the map built
// from the samples and their ranks.
void from_used_matches(const std::vector<int32_t> &values, uint32_t bits, int is_signed, int offset,
                       uint32_t r0, uint64_t seed)
{
    Rng rng(seed);
    const uint32_t rows = 9, cols = 13;
    const size_t stride = cols + 2;
    std::vector<int32_t> plane = plane_of(values, rows, cols, rng);
    std::vector<uint8_t> used(size_t{1} << bits, 0);
    pcwt_offset_mark_used(plane.data(), stride, rows, cols, bits, used.data());
    std::vector<int32_t> want = plane;
    if (offset)
        pcwt_offset_apply(want.data(), stride, rows, cols, bits, r0);
    Map built, fast;
    ASSERT_EQ(pcwt_value_map_build(&built.m, want.data(), stride, rows, cols), PCWT_OK);
    ASSERT_EQ(pcwt_value_map_from_used(&fast.m, used.data(), bits, is_signed, offset, r0), PCWT_OK);
    ASSERT_EQ(fast.m.count, built.m.count);
    EXPECT_TRUE(std::equal(built.m.values, built.m.values + built.m.count, fast.m.values));
    pcwt_value_map_to_ranks(&built.m, want.data(), stride, rows, cols);
    ASSERT_EQ(pcwt_value_map_to_ranks_mod(&fast.m, plane.data(), stride, rows, cols, bits, offset ? r0 : 0u), 1);
    EXPECT_EQ(plane, want) << "the same ranks; the extra columns are left alone";
}

TEST(ValueMap, FromTheOffsetsStoredValues)
{
    from_used_matches({0, 3, 4, 1023}, 10, 0, 0, 0, 21);
    from_used_matches({0, 3, 4, 1023}, 10, 0, 1, 1000, 22);
    from_used_matches({-2048, -1, 0, 5, 2047}, 12, 1, 0, 0, 23);
    from_used_matches({-2048, -1, 0, 5, 2047}, 12, 1, 1, 2048, 24);
    from_used_matches({-7, 9}, 16, 1, 1, 65535, 25);
    from_used_matches({65535, 0, 1, 40000}, 16, 0, 1, 1, 26);
    from_used_matches({1}, 1, 0, 0, 0, 27);
    from_used_matches({-1, 0}, 1, 1, 1, 1, 28);
}

TEST(ValueMap, OneValue)
{
    round_trip({-5}, 3, 7, 1);
    round_trip({PCWT_VMAP_MIN}, 1, 1, 2);
    round_trip({PCWT_VMAP_MAX}, 2, 2, 3);
}

TEST(ValueMap, TwoValues)
{
    round_trip({0, 1}, 4, 4, 4);
    round_trip({-32768, 32767}, 5, 3, 5);
    round_trip({PCWT_VMAP_MIN, PCWT_VMAP_MAX}, 2, 1, 6);
}

TEST(ValueMap, DenseAndSparseSets)
{
    std::vector<int32_t> dense16(65536);
    for (int32_t i = 0; i < 65536; i++)
        dense16[i] = i - 32768; // every 16-bit signed value
    round_trip(dense16, 256, 300, 7);
    std::vector<int32_t> every4;
    for (int32_t v = 2; v < 4096; v += 4)
        every4.push_back(v); // a lattice
    round_trip(every4, 40, 40, 8);
    Rng rng(9);
    std::set<int32_t> random_sparse;
    while (random_sparse.size() < 823)
        random_sparse.insert(static_cast<int32_t>(rng.below(4096)));
    round_trip(std::vector<int32_t>(random_sparse.begin(), random_sparse.end()), 64, 64, 10);
    std::vector<int32_t> ct = {-3024}; // padding far from the body's values
    for (int32_t v = -1024; v < 1500; v++)
        ct.push_back(v);
    round_trip(ct, 60, 50, 11);
    std::vector<int32_t> widest;
    for (int64_t v = PCWT_VMAP_MIN; v <= PCWT_VMAP_MAX; v += 1)
        widest.push_back(static_cast<int32_t>(v));
    round_trip(widest, 512, 512, 12); // PCWT_VMAP_MAX_COUNT values
}

TEST(ValueMap, CompactForTypicalSets)
{
    // Dense sets and regular lattices cost a few bytes, whatever their size.
    Map m;
    std::vector<int32_t> v(65536);
    for (int32_t i = 0; i < 65536; i++)
        v[i] = i;
    m.m.values = v.data();
    m.m.count = 65536;
    EXPECT_LT(write_map(m.m).size(), 64u);
    for (int32_t i = 0; i < 1024; i++)
        v[i] = 4 * i;
    m.m.count = 1024;
    EXPECT_LT(write_map(m.m).size(), 64u);
    m.m.values = nullptr; // not ours
    m.m.count = 0;
}

TEST(ValueMap, Decision)
{
    auto wanted = [](std::vector<int32_t> v) {
        pcwt_value_map m{v.data(), static_cast<uint32_t>(v.size()), static_cast<uint32_t>(v.size())};
        return pcwt_value_map_wanted(&m);
    };
    std::vector<int32_t> dense;
    for (int32_t i = 0; i < 1000; i++)
        dense.push_back(i);
    EXPECT_FALSE(wanted(dense)) << "every value of the span used";
    std::vector<int32_t> half;
    for (int32_t i = 0; i < 1000; i += 2)
        half.push_back(i);
    EXPECT_TRUE(wanted(half)) << "half of the span used";
    std::vector<int32_t> padded = dense;
    padded.insert(padded.begin(), -2000);
    EXPECT_TRUE(wanted(padded)) << "one value far from the rest";
    EXPECT_TRUE(wanted({7})) << "a constant plane";
}

TEST(ValueMap, DamagedMapsAreRefused)
{
    std::vector<int32_t> vals;
    for (int32_t v = -100; v < 400; v += 3)
        vals.push_back(v);
    pcwt_value_map src{vals.data(), static_cast<uint32_t>(vals.size()), 0};
    const std::vector<uint8_t> good = write_map(src);
    ASSERT_GT(good.size(), 6u);
    auto read = [](const std::vector<uint8_t> &b, uint64_t max_count, std::string *why) {
        Map m;
        size_t used = 0;
        char err[200] = "";
        const pcwt_status st = pcwt_value_map_read(&m.m, b.data(), b.size(), max_count, &used, err, sizeof err);
        if (why)
            *why = err;
        if (st == PCWT_OK) {
            EXPECT_LE(used, b.size());
        }
        return st;
    };
    std::string why;
    EXPECT_EQ(read(good, 1000, &why), PCWT_OK) << why;
    // Every truncation is refused (the map's stream is cut).
    for (size_t n = 0; n < good.size(); n++) {
        std::vector<uint8_t> t(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(read(t, 1000, &why), PCWT_ERR_CORRUPT) << "cut at " << n;
        EXPECT_NE(why.find("value map"), std::string::npos) << why;
    }
    // More values than the plane has samples, or than any plane can hold: refused before allocating.
    EXPECT_EQ(read(good, vals.size() - 1, &why), PCWT_ERR_CORRUPT);
    EXPECT_NE(why.find("values"), std::string::npos) << why;
    std::vector<uint8_t> huge = {0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x01, 0x01}; // 2^32 - 1 values
    EXPECT_EQ(read(huge, UINT64_MAX, &why), PCWT_ERR_CORRUPT);
    std::vector<uint8_t> zero = {0x00, 0x00, 0x00};
    EXPECT_EQ(read(zero, 100, &why), PCWT_ERR_CORRUPT);
    // A first value outside every plane's range, or a set running past it.
    std::vector<uint8_t> far = {0x01, 0x80, 0x80, 0x10, 0x00}; // zigzag 2^18 = value 2^17
    EXPECT_EQ(read(far, 100, &why), PCWT_ERR_CORRUPT);
    EXPECT_NE(why.find("range"), std::string::npos) << why;
    // One value with a stream, several without one.
    EXPECT_EQ(read({0x01, 0x00, 0x01, 0x33}, 100, &why), PCWT_ERR_CORRUPT);
    EXPECT_EQ(read({0x02, 0x00, 0x00}, 100, &why), PCWT_ERR_CORRUPT);
    // Flipped bits in the stream: refused, or read as some set (the range coder's last bytes have
    // slack; the payload CRC is what catches those), never a crash or an over-read (ASan).
    int refused = 0;
    for (size_t i = 3; i < good.size(); i++)
        for (int b = 0; b < 8; b++) {
            std::vector<uint8_t> f = good;
            f[i] ^= static_cast<uint8_t>(1u << b);
            Map m;
            size_t used = 0;
            char err[200];
            if (pcwt_value_map_read(&m.m, f.data(), f.size(), 1000, &used, err, sizeof err) != PCWT_OK)
                refused++;
            else
                EXPECT_TRUE(std::is_sorted(m.m.values, m.m.values + m.m.count));
        }
    EXPECT_GT(refused, 0);
    // A rank outside the map.
    Map m;
    size_t used = 0;
    char err[200] = "";
    ASSERT_EQ(pcwt_value_map_read(&m.m, good.data(), good.size(), 1000, &used, err, sizeof err), PCWT_OK);
    std::vector<int32_t> plane = {0, 1, static_cast<int32_t>(vals.size()), 2};
    EXPECT_EQ(pcwt_value_map_from_ranks(&m.m, plane.data(), 4, 1, 4, err, sizeof err), PCWT_ERR_CORRUPT);
    EXPECT_NE(std::string(err).find("rank"), std::string::npos) << err;
    plane = {0, -1, 0, 0};
    EXPECT_EQ(pcwt_value_map_from_ranks(&m.m, plane.data(), 4, 1, 4, err, sizeof err), PCWT_ERR_CORRUPT);
}
