// MQD bands and Qmax against a direct computation from the definition: the MQD of an element is
// the largest quantisation level among its 2x2 coefficients and all their descendants of the
// same orientation (clipped to each finer band), and Qmax is the largest top-level MQD.
#include <gtest/gtest.h>

extern "C" {
#include "dwt53.h"
#include "mqd.h"
}
#include "test_util.h"

namespace {

int ql(int32_t c) { return pcwt_ql_of_magnitude(pcwt_magnitude(c)); }

// Largest QL in rows [r0, r1) x cols [c0, c1) of band b, clipped to the band.
int region_max(const pcwt_band &b, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1)
{
    int m = -1;
    for (uint64_t i = r0; i < r1 && i < b.rows; i++)
        for (uint64_t j = c0; j < c1 && j < b.cols; j++)
            m = std::max(m, ql(b.coef[i * b.cols + j]));
    return m;
}

TEST(Mqd, MatchesDirectDefinitionAndQmax)
{
    struct Case { uint32_t r, c, levels; int bits; bool sparse; };
    const Case cases[] = {{1, 1, 0, 8, false},   {5, 9, 1, 8, false},   {37, 53, 3, 12, true},
                          {64, 64, 4, 16, false}, {100, 61, 5, 16, true}, {2, 300, 1, 4, true},
                          {129, 131, 6, 10, true}};
    Rng rng(3);
    pcwt_pyramid p{};
    for (const Case &cs : cases) {
        pcwt_plan plan;
        pcwt_plan_make(&plan, cs.r, cs.c, cs.levels);
        ASSERT_EQ(pcwt_pyramid_prepare(&p, &plan), PCWT_OK);
        const uint32_t stride = pcwt_even_up(cs.c);
        std::memset(p.image, 0, sizeof(int32_t) * stride * pcwt_even_up(cs.r));
        for (uint32_t i = 0; i < cs.r; i++)
            for (uint32_t j = 0; j < cs.c; j++) {
                int32_t v = static_cast<int32_t>(rng.below(1u << cs.bits)) - (1 << (cs.bits - 1));
                if (cs.sparse && rng.below(8)) v = 0; // flat regions give MQD -1 subtrees
                p.image[static_cast<size_t>(i) * stride + j] = v;
            }
        pcwt_dwt53_forward(&p, 0, 0);
        const int qmax = pcwt_mqd_compute(&p);
        const uint32_t L = plan.levels;
        int top = -1;
        for (uint32_t b = 0; b < p.band_count; b++) {
            const pcwt_band &band = p.band[b];
            for (uint32_t x = 0; x < band.mrows; x++)
                for (uint32_t y = 0; y < band.mcols; y++) {
                    int expect = -1;
                    if (b == 0) {
                        expect = region_max(band, 2 * x, 2 * x + 2, 2 * y, 2 * y + 2);
                    } else {
                        const uint32_t o = (b - 1) % 3;
                        for (uint32_t l = band.level; l >= 1; l--) {
                            const pcwt_band &d = p.band[pcwt_band_index(L, l, o)];
                            const uint64_t span = 2ull << (band.level - l);
                            expect = std::max(expect, region_max(d, x * span, (x + 1) * span,
                                                                 y * span, (y + 1) * span));
                        }
                    }
                    ASSERT_EQ(band.mqd[static_cast<size_t>(x) * band.mcols + y], expect)
                        << "band " << b << " element " << x << "," << y;
                    if (band.level == L) top = std::max(top, expect);
                }
        }
        EXPECT_EQ(qmax, top);
    }
    pcwt_pyramid_free(&p);
}

TEST(Mqd, SeedExamples)
{
    // Type (1): (-5, -4, 0, 1) -> QLs (2, 2, -1, 0) -> MQD 2.
    int32_t coef[4] = {-5, -4, 0, 1};
    int8_t m = 0;
    pcwt_mqd_band(coef, 2, &m, 1, 1, nullptr, 0, 0);
    EXPECT_EQ(m, 2);
    // Type (2): (28, -7, 35, -23) with supporting MQDs (2, 4, 3, 3) -> 5.
    int32_t coef2[4] = {28, -7, 35, -23};
    int8_t child[4] = {2, 4, 3, 3};
    pcwt_mqd_band(coef2, 2, &m, 1, 1, child, 2, 2);
    EXPECT_EQ(m, 5);
    // A child MQD larger than every coefficient wins.
    int8_t big[4] = {-1, 9, -1, -1};
    pcwt_mqd_band(coef2, 2, &m, 1, 1, big, 2, 2);
    EXPECT_EQ(m, 9);
    // All zero: -1.
    int32_t zero[4] = {0, 0, 0, 0};
    pcwt_mqd_band(zero, 2, &m, 1, 1, nullptr, 0, 0);
    EXPECT_EQ(m, -1);
}

} // namespace
