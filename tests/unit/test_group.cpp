// Group layout of a plane payload: one record per group, in band order and raster order within a
// band, each a little-endian bit length followed by exactly ceil(bits / 8) bytes, whose bit count
// is the sum of its elements' code lengths.
#include <gtest/gtest.h>

extern "C" {
#include "dwt53.h"
#include "element.h"
#include "group_coder.h"
}
#include "test_util.h"

namespace {

TEST(Group, PayloadLayout)
{
    struct Case { uint32_t r, c, levels, gr, gc; };
    const Case cases[] = {{37, 53, 3, 4, 5}, {64, 64, 4, 8, 8}, {33, 17, 2, 3, 2},
                          {50, 70, 3, 32, 32}, {1, 1, 0, 1, 1}, {300, 20, 5, 7, 1}};
    Rng rng(4);
    pcwt_pyramid p{};
    for (const Case &cs : cases) {
        pcwt_plan plan;
        pcwt_plan_make(&plan, cs.r, cs.c, cs.levels);
        ASSERT_EQ(pcwt_pyramid_prepare(&p, &plan), PCWT_OK);
        const uint32_t stride = pcwt_even_up(cs.c);
        std::memset(p.image, 0, sizeof(int32_t) * stride * pcwt_even_up(cs.r));
        for (uint32_t i = 0; i < cs.r; i++)
            for (uint32_t j = 0; j < cs.c; j++)
                p.image[static_cast<size_t>(i) * stride + j] =
                    rng.below(4) ? static_cast<int32_t>(rng.below(256)) : 0;
        pcwt_dwt53_forward(&p, 0, 0);
        const int qmax = pcwt_mqd_compute(&p);
        const uint64_t size = pcwt_payload_size(&p, qmax, cs.gr, cs.gc);
        std::vector<uint8_t> buf(static_cast<size_t>(size));
        pcwt_payload_encode(&p, qmax, cs.gr, cs.gc, buf.data());

        size_t pos = 0;
        uint64_t groups = 0;
        for (uint32_t b = 0; b < p.band_count; b++) {
            const pcwt_band &band = p.band[b];
            const bool top = plan.levels ? b < 4 : b == 0;
            for (uint32_t gx = 0; gx < band.mrows; gx += cs.gr)
                for (uint32_t gy = 0; gy < band.mcols; gy += cs.gc) {
                    uint64_t bits = 0;
                    for (uint32_t x = gx; x < std::min(gx + cs.gr, band.mrows); x++)
                        for (uint32_t y = gy; y < std::min(gy + cs.gc, band.mcols); y++) {
                            int r = qmax;
                            if (!top) {
                                const pcwt_band &par = p.band[b - 3];
                                r = par.mqd[(x / 2) * par.mcols + y / 2];
                            }
                            bits += pcwt_element_bits(r, band.mqd[x * band.mcols + y]);
                        }
                    ASSERT_LE(pos + 4, buf.size());
                    const uint32_t len = buf[pos] | buf[pos + 1] << 8 | buf[pos + 2] << 16 |
                                         static_cast<uint32_t>(buf[pos + 3]) << 24;
                    ASSERT_EQ(len, bits) << "group " << groups;
                    pos += 4 + (len + 7) / 8;
                    groups++;
                }
        }
        EXPECT_EQ(pos, buf.size());
        EXPECT_EQ(groups, pcwt_group_count(&p, cs.gr, cs.gc));
        EXPECT_LE(size, pcwt_payload_max_size(&plan, qmax, cs.gr, cs.gc));

        // And the decoder reads it back to the same coefficients.
        std::vector<int32_t> coef;
        for (uint32_t b = 0; b < p.band_count; b++)
            coef.insert(coef.end(), p.band[b].coef,
                        p.band[b].coef + static_cast<size_t>(p.band[b].rows) * p.band[b].cols);
        char err[128];
        ASSERT_EQ(pcwt_payload_decode(&p, qmax, cs.gr, cs.gc, buf.data(), buf.size(), err,
                                      sizeof err),
                  PCWT_OK)
            << err;
        size_t k = 0;
        for (uint32_t b = 0; b < p.band_count; b++)
            for (size_t i = 0; i < static_cast<size_t>(p.band[b].rows) * p.band[b].cols; i++)
                ASSERT_EQ(p.band[b].coef[i], coef[k++]);
    }
    pcwt_pyramid_free(&p);
}

} // namespace
