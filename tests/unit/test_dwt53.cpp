// The (5,3) lifting: against a direct evaluation of the filter equations with mirrored edges,
// exact inversion of the whole multi-level pyramid on many sizes and bit depths in both lifting
// orders, and columns first as rows first of the transposed image.
#include <gtest/gtest.h>

extern "C" {
#include "dwt53.h"
}
#include "test_util.h"

namespace {

// Direct evaluation: x[-i] = x[i], x[n-1+i] = x[n-1-i] (whole-sample symmetric).
void direct_forward(const std::vector<int32_t> &x, std::vector<int32_t> &L, std::vector<int32_t> &H)
{
    const int n = static_cast<int>(x.size());
    auto X = [&](int i) {
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
        return x[i];
    };
    const int N = n / 2;
    H.assign(N, 0);
    L.assign(N, 0);
    auto Hs = [&](int i) { // H extended symmetrically: H[-1] = H[0]
        const int j = i < 0 ? 0 : i;
        return X(2 * j + 1) - ((X(2 * j) + X(2 * j + 2)) >> 1);
    };
    for (int i = 0; i < N; i++) H[i] = Hs(i);
    for (int i = 0; i < N; i++) L[i] = X(2 * i) + ((Hs(i - 1) + Hs(i) + 2) >> 2);
}

TEST(Dwt53, OneDimensionMatchesFilterEquationsAndInverts)
{
    Rng rng(1);
    for (uint32_t n = 2; n <= 64; n += 2) {
        for (int bits : {1, 8, 12, 16}) {
            std::vector<int32_t> x(n), L(n / 2), H(n / 2), back(n), dl, dh;
            for (auto &v : x) v = static_cast<int32_t>(rng.below(1u << bits)) - (1 << (bits - 1));
            pcwt_dwt53_forward_1d(x.data(), n, L.data(), H.data());
            direct_forward(x, dl, dh);
            ASSERT_EQ(L, dl) << "n=" << n;
            ASSERT_EQ(H, dh) << "n=" << n;
            pcwt_dwt53_inverse_1d(L.data(), H.data(), n, back.data());
            ASSERT_EQ(x, back) << "n=" << n;
        }
    }
}

TEST(Dwt53, ConstantSignalHasZeroHighBand)
{
    std::vector<int32_t> x(10, 77), L(5), H(5);
    pcwt_dwt53_forward_1d(x.data(), 10, L.data(), H.data());
    for (int i = 0; i < 5; i++) {
        EXPECT_EQ(H[i], 0);
        EXPECT_EQ(L[i], 77);
    }
}

struct Size { uint32_t r, c, levels; };

TEST(Dwt53, PyramidInvertsExactly)
{
    const Size sizes[] = {{1, 1, 0},   {1, 1, 3},   {1, 17, 2},  {17, 1, 2},  {2, 2, 1},
                          {3, 5, 2},   {7, 13, 3},  {31, 37, 4}, {61, 67, 6}, {64, 64, 5},
                          {128, 96, 10}, {257, 263, 6}, {1000, 999, 6}, {4, 1024, 7}};
    Rng rng(2);
    pcwt_pyramid p{};
    for (const Size &s : sizes) {
        for (int bits : {1, 8, 16}) {
            for (int sgn = 0; sgn < 4; sgn++) { // bit 0: signed; bit 1: columns first
                const int cols_first = sgn >> 1;
                pcwt_plan plan;
                pcwt_plan_make(&plan, s.r, s.c, s.levels);
                ASSERT_EQ(pcwt_pyramid_prepare(&p, &plan), PCWT_OK);
                const uint32_t stride = pcwt_even_up(s.c), rows = pcwt_even_up(s.r);
                std::vector<int32_t> img(static_cast<size_t>(stride) * rows, 0);
                for (uint32_t i = 0; i < s.r; i++)
                    for (uint32_t j = 0; j < s.c; j++) {
                        int32_t v = static_cast<int32_t>(rng.below(1u << bits));
                        if (sgn & 1) v -= 1 << (bits - 1);
                        img[static_cast<size_t>(i) * stride + j] = v;
                    }
                std::memcpy(p.image, img.data(), img.size() * sizeof(int32_t));
                pcwt_dwt53_forward(&p, cols_first, 0);
                if (plan.levels) // the inverse must rewrite the whole image
                    std::memset(p.image, 0x5a, img.size() * sizeof(int32_t));
                pcwt_dwt53_inverse(&p, cols_first, 0);
                ASSERT_EQ(0, std::memcmp(p.image, img.data(), img.size() * sizeof(int32_t)))
                    << s.r << "x" << s.c << " levels " << s.levels << " bits " << bits
                    << (cols_first ? " columns first" : " rows first");
            }
        }
    }
    pcwt_pyramid_free(&p);
}

// Lifting the columns of X first is lifting the rows of X's transpose first: every band of every
// level (padding included) is the transpose of the other's, with HL and LH swapped. And on a noisy
// image the two orders give different coefficients (integer rounding), so the order is coded.
TEST(Dwt53, ColumnsFirstIsRowsFirstOfTheTranspose)
{
    const Size sizes[] = {{1, 1, 1}, {1, 17, 2}, {17, 1, 2}, {3, 5, 2}, {7, 13, 3},
                          {31, 38, 4}, {66, 130, 6}, {129, 64, 7}};
    Rng rng(3);
    pcwt_pyramid a{}, b{};
    for (const Size &s : sizes) {
        pcwt_plan pa, pb;
        pcwt_plan_make(&pa, s.r, s.c, s.levels);
        pcwt_plan_make(&pb, s.c, s.r, s.levels);
        ASSERT_EQ(pcwt_pyramid_prepare(&a, &pa), PCWT_OK);
        ASSERT_EQ(pcwt_pyramid_prepare(&b, &pb), PCWT_OK);
        const uint32_t ra = pcwt_even_up(s.r), ca = pcwt_even_up(s.c);
        std::memset(a.image, 0, sizeof(int32_t) * ra * ca);
        std::memset(b.image, 0, sizeof(int32_t) * ra * ca);
        for (uint32_t i = 0; i < s.r; i++)
            for (uint32_t j = 0; j < s.c; j++) {
                const int32_t v = static_cast<int32_t>(rng.below(1u << 12)) - 2048;
                a.image[static_cast<size_t>(i) * ca + j] = v;
                b.image[static_cast<size_t>(j) * ra + i] = v;
            }
        pcwt_dwt53_forward(&a, 1, 0);
        pcwt_dwt53_forward(&b, 0, 0);
        const std::string what = std::to_string(s.r) + "x" + std::to_string(s.c);
        ASSERT_EQ(a.band_count, b.band_count) << what;
        for (uint32_t k = 0; k < a.band_count; k++) {
            // band order: LL, then HL, LH, HH per level: HL and LH trade places
            const uint32_t o = k == 0 ? 3 : (k - 1) % 3, kb = o == 0 ? k + 1 : o == 1 ? k - 1 : k;
            const pcwt_band &x = a.band[k], &y = b.band[kb];
            ASSERT_EQ(x.rows, y.cols) << what << " band " << k;
            ASSERT_EQ(x.cols, y.rows) << what << " band " << k;
            for (uint32_t i = 0; i < x.rows; i++)
                for (uint32_t j = 0; j < x.cols; j++)
                    ASSERT_EQ(x.coef[static_cast<size_t>(i) * x.cols + j],
                              y.coef[static_cast<size_t>(j) * y.cols + i])
                        << what << " band " << k << " at " << i << "," << j;
        }
    }
    // rows first against columns first on one image: some coefficient differs, both invert
    pcwt_plan plan;
    pcwt_plan_make(&plan, 64, 64, 3);
    ASSERT_EQ(pcwt_pyramid_prepare(&a, &plan), PCWT_OK);
    ASSERT_EQ(pcwt_pyramid_prepare(&b, &plan), PCWT_OK);
    for (size_t k = 0; k < 64 * 64; k++)
        a.image[k] = b.image[k] = static_cast<int32_t>(rng.below(1u << 12));
    pcwt_dwt53_forward(&a, 0, 0);
    pcwt_dwt53_forward(&b, 1, 0);
    size_t differ = 0;
    for (uint32_t k = 0; k < a.band_count; k++)
        for (size_t i = 0; i < static_cast<size_t>(a.band[k].rows) * a.band[k].cols; i++)
            differ += a.band[k].coef[i] != b.band[k].coef[i];
    EXPECT_GT(differ, 100u) << "the two lifting orders gave (almost) the same coefficients";
    pcwt_pyramid_free(&a);
    pcwt_pyramid_free(&b);
}

TEST(Plan, ReproducesFig32)
{
    // Seed 000, Fig. 3.2: a 4104-sample dimension, 5 levels.
    pcwt_plan plan;
    pcwt_plan_make(&plan, 4104, 4104, 5);
    const uint32_t level[] = {4104, 2052, 1026, 514, 258};
    const uint32_t band[] = {2052, 1026, 514, 258, 130};
    const uint32_t mqd[] = {1026, 513, 257, 129, 65};
    for (int l = 0; l < 5; l++) {
        EXPECT_EQ(plan.lv[l].level_c, level[l]);
        EXPECT_EQ(plan.lv[l].band_c, band[l]);
        EXPECT_EQ(plan.lv[l].mqd_c, mqd[l]);
    }
    EXPECT_EQ(plan.ll_c, 130u);
}

TEST(Plan, LevelsCappedByMinimumLowBand)
{
    EXPECT_EQ(pcwt_plan_max_levels(1024, 1024, 64), 4u); // the seed's MADL example
    EXPECT_EQ(pcwt_plan_max_levels(512, 512, 2), 8u);
    EXPECT_EQ(pcwt_plan_max_levels(1, 1, 2), 0u);
    EXPECT_EQ(pcwt_plan_max_levels(1, 1000, 2), 0u);
    EXPECT_EQ(pcwt_plan_max_levels(4, 4, 2), 1u);
    EXPECT_EQ(pcwt_plan_max_levels(65535, 65535, 1), static_cast<uint32_t>(PCWT_MAX_LEVELS));
}

} // namespace
