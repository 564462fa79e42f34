// The 5/11-C level-1 filter (docs/FORMAT.md Sec. 3.4) on every corpus frame: exact round trips
// with level1-filter auto and 511 in the compact profile (CPU); auto takes 5/11-C on the GE CT
// series and keeps 5/3 on the DX radiograph (966_fixed_DX), and in aggregate is smaller than 5/3.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "corpus_gtest.hpp"
#include "pcwt.h"

namespace {

using pcwt_corpus::Frame;

struct Coded {
    std::string error;
    size_t bytes = 0;
    uint32_t planes511 = 0; // planes whose option bit 2 is set
};

Coded round_trip(const Frame &fr, const std::vector<unsigned char> &samples, pcwt_level1_filter f)
{
    Coded c;
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_decoder *d = pcwt_decoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_CPU;
    p.profile = PCWT_PROFILE_COMPACT;
    p.level1_filter = f;
    std::vector<unsigned char> cs(pcwt_encode_bound(&fr.desc)), out(samples.size(), 0xA5);
    size_t n = 0;
    pcwt_status st = pcwt_encoder_set_params(e, &p);
    if (st == PCWT_OK)
        st = pcwt_encode(e, &fr.desc, samples.data(), samples.size(), cs.data(), cs.size(), &n);
    pcwt_header_info h;
    if (st == PCWT_OK)
        st = pcwt_read_header(cs.data(), n, &h);
    if (st == PCWT_OK)
        st = pcwt_decoder_set_backend(d, PCWT_BACKEND_CPU);
    if (st == PCWT_OK)
        st = pcwt_decode(d, cs.data(), n, out.data(), out.size());
    if (st != PCWT_OK)
        c.error = std::string(pcwt_status_string(st)) + ": " + pcwt_encoder_last_error(e) + " " +
                  pcwt_decoder_last_error(d);
    else if (out != samples)
        c.error = "decoded frame differs";
    else
        for (uint32_t i = 0; i < h.plane_count; i++)
            c.planes511 += h.planes[i].level1_511;
    c.bytes = n;
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
    return c;
}

} // namespace

TEST(corpus, RoundTripEveryFrameLevel1Filters)
{
    REQUIRE_CORPUS();
    const pcwt_corpus::Manifest &m = pcwt_corpus::manifest();
    size_t passed = 0, raw = 0, with53 = 0, chosen = 0, planes_auto = 0, ge_ct = 0, ge_ct_511 = 0;
    bool dx_seen = false;
    for (const Frame &fr : m.frames) {
        std::vector<unsigned char> samples;
        const std::string err = pcwt_corpus::load_raw(fr, &samples);
        if (!err.empty()) {
            ADD_FAILURE() << fr.name() << ": " << err;
            continue;
        }
        const Coded a = round_trip(fr, samples, PCWT_LEVEL1_AUTO);
        const Coded f = round_trip(fr, samples, PCWT_LEVEL1_511);
        const Coded b = round_trip(fr, samples, PCWT_LEVEL1_53);
        if (!a.error.empty() || !f.error.empty() || !b.error.empty()) {
            ADD_FAILURE() << fr.name() << ": auto: " << a.error << " / 511: " << f.error << " / 53: " << b.error;
            continue;
        }
        EXPECT_EQ(b.planes511, 0u) << fr.name();
        if (a.planes511 == 0) { // auto kept 5/3 everywhere: 5/3's bytes
            EXPECT_EQ(a.bytes, b.bytes) << fr.name();
        }
        if (fr.source.find("dcm_qa_ct/GE_CT_series/") != std::string::npos) {
            ge_ct++;
            ge_ct_511 += a.planes511 == 1;
        }
        if (fr.source.find("966_fixed_DX") != std::string::npos) {
            dx_seen = true;
            EXPECT_EQ(a.planes511, 0u) << fr.name() << ": the radiograph should keep 5/3";
        }
        ++passed;
        raw += samples.size();
        with53 += b.bytes;
        chosen += a.bytes;
        planes_auto += a.planes511;
    }
    EXPECT_EQ(passed, m.frames.size());
    EXPECT_GT(ge_ct, 0u);
    EXPECT_EQ(ge_ct_511, ge_ct) << "every GE CT slice should take 5/11-C";
    EXPECT_TRUE(dx_seen);
    EXPECT_LT(chosen, with53);
    if (chosen)
        std::printf("[ corpus ] level-1 filter auto: %zu/%zu frames exact, %zu planes with 5/11-C; ratio %.4f "
                    "(5/3: %.4f)\n",
                    passed, m.frames.size(), planes_auto, double(raw) / double(chosen), double(raw) / double(with53));
}
