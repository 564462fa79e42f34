// The library's JPEG 2000 decoder (codec/src/j2k_*.c, pcwt_decode on a JPEG 2000 codestream):
// streams made at test time by opj_compress over sizes, levels, code-block sizes, bit depths,
// signedness, components and colour transform, layers, progression orders, precincts, SOP/EPH
// and code-block styles decode to the source image (lossless) and to opj_decompress's samples;
// what the decoder does not do is refused as unsupported. Skips without libopenjp2-tools.
#include "j2k_opj_util.h"
#include "j2k_pcwt_decode.h"

#include "pcwt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

using namespace j2kt1;

namespace {

using Case = OpjCase;

const Case kCases[] = {
    {"one_pixel", 1, 1, 1, 8, false, "-n 1"},
    {"one_row", 77, 1, 1, 8, false, "-n 1"},
    {"one_column", 1, 65, 1, 12, false, "-n 1"},
    {"two_by_two", 2, 2, 1, 8, false, "-n 2"},
    {"odd_levels1", 33, 29, 1, 12, false, "-n 2"},
    {"odd_levels3", 97, 75, 1, 14, true, "-n 4"},
    {"levels0", 50, 40, 1, 16, false, "-n 1"},
    {"levels6", 300, 200, 1, 16, true, "-n 7"},
    {"levels8", 512, 300, 1, 12, false, "-n 9"},
    {"ct512", 512, 512, 1, 16, true, "-n 6"},
    {"dx2000x2500", 2000, 2500, 1, 16, false, "-n 6"},
    {"u8", 130, 70, 1, 8, false, "-n 5"},
    {"s8", 130, 70, 1, 8, true, "-n 5"},
    {"u10", 130, 70, 1, 10, false, "-n 5"},
    {"u12", 130, 70, 1, 12, false, "-n 5"},
    {"s12", 130, 70, 1, 12, true, "-n 5"},
    {"u15", 130, 70, 1, 15, false, "-n 5"},
    {"u16", 130, 70, 1, 16, false, "-n 5"},
    {"s16", 130, 70, 1, 16, true, "-n 5"},
    {"bits1", 64, 33, 1, 1, false, "-n 3"},
    {"bits4", 64, 33, 1, 4, false, "-n 3"},
    {"rgb8_mct", 120, 90, 3, 8, false, "-n 4"},
    {"rgb8_nomct", 120, 90, 3, 8, false, "-n 4 -mct 0"},
    {"rgb16_mct", 67, 45, 3, 16, false, "-n 3"},
    {"rgb12s_mct", 67, 45, 3, 12, true, "-n 3"},
    {"cblk16", 200, 150, 1, 12, false, "-n 4 -b 16,16"},
    {"cblk4x1024", 60, 1100, 1, 12, false, "-n 3 -b 4,1024"},
    {"cblk128x32", 300, 100, 1, 12, false, "-n 3 -b 128,32"},
    {"cblk32x8", 100, 100, 1, 12, false, "-n 3 -b 32,8"},
    {"layers3", 200, 150, 1, 12, false, "-n 4 -r 20,10,1"},
    {"layers5_rgb", 100, 80, 3, 8, false, "-n 3 -r 40,20,10,5,1"},
    {"rlcp_layers", 200, 150, 1, 12, false, "-n 4 -p RLCP -r 10,1"},
    {"rpcl", 200, 150, 1, 12, false, "-n 4 -p RPCL -r 10,1"},
    {"pcrl", 200, 150, 1, 12, false, "-n 4 -p PCRL -r 10,1"},
    {"cprl", 200, 150, 3, 8, false, "-n 4 -p CPRL -r 10,1"},
    {"precincts", 300, 200, 1, 12, false, "-n 4 -c [64,64],[32,32],[16,16]"},
    {"precincts_rpcl", 300, 200, 3, 8, false, "-n 4 -p RPCL -c [128,128],[64,64] -r 5,1"},
    {"precincts_pcrl", 257, 199, 1, 16, true, "-n 5 -p PCRL -c [32,32] -b 16,16"},
    {"precincts_cprl", 257, 199, 3, 10, false, "-n 3 -p CPRL -c [16,16] -b 8,8 -r 3,1"},
    {"precincts_small", 100, 90, 1, 8, false, "-n 3 -c [16,16],[8,8],[4,4] -b 4,4"},
    {"sop_eph", 200, 150, 1, 12, false, "-n 4 -SOP -EPH -r 10,1"},
    {"sop_eph_rgb_rpcl", 100, 80, 3, 8, false, "-n 3 -SOP -EPH -p RPCL -c [32,32]"},
    {"bypass", 100, 90, 1, 16, false, "-n 3 -M 1"},
    {"termall", 100, 90, 1, 12, false, "-n 3 -M 4"},
    {"all_styles_layers", 100, 90, 1, 16, true, "-n 3 -M 63 -r 10,3,1"},
    {"bypass_layers", 100, 90, 1, 16, false, "-n 3 -M 1 -r 8,4,1"},
    {"tile_parts", 200, 150, 3, 8, false, "-n 4 -TP R"},
    {"tile_parts_c", 200, 150, 3, 8, false, "-n 4 -TP C -p CPRL"},
    {"plt_tlm_comment", 200, 150, 1, 12, false, "-n 4 -PLT -TLM -C a_comment -r 5,1"},
    // reversible but rate-truncated (JPEG 2000 .91): OpenJPEG's reconstruction of partial passes
    {"rate20", 200, 150, 1, 12, false, "-n 4 -r 20", false},
    {"rate_layers_rgb", 120, 90, 3, 8, false, "-n 3 -r 40,10,6", false},
    {"rate_bypass_precincts", 200, 150, 1, 16, true, "-n 4 -r 8 -M 1 -c [64,64],[32,32] -p RPCL", false},
};

class J2kStream : public ::testing::TestWithParam<Case> {};

TEST_P(J2kStream, EqualsSourceAndOpenJPEG)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress/opj_decompress missing (libopenjp2-tools)";
    const Case &c = GetParam();
    const Image im = makeImage(c.w, c.h, c.comps, c.bits, c.sgn, c.w * 31 + c.bits);
    const std::vector<uint8_t> cs = opjEncode(im, c.args);
    ASSERT_FALSE(cs.empty()) << "opj_compress failed on " << c.name << " " << c.args;
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    EXPECT_EQ(info.format_version, 0u);
    EXPECT_EQ(info.desc.width, c.w);
    EXPECT_EQ(info.desc.height, c.h);
    EXPECT_EQ(info.desc.components, c.comps);
    EXPECT_EQ(info.desc.bits_stored, c.bits);
    EXPECT_EQ(info.desc.is_signed, c.sgn ? 1u : 0u);
    const std::vector<int32_t> ours = decodeEqualToOpenJpeg(cs, im);
    ASSERT_FALSE(ours.empty());
    // opj_compress's -r rates make lossy layers only above the last one (1: lossless)
    if (c.lossless)
        EXPECT_TRUE(ours == im.v) << "not the source image";
    else
        EXPECT_FALSE(ours == im.v) << "a rate-truncated stream gave the source back";
}

// A JP2 file: the codestream in its jp2c box
TEST(J2kFile, Jp2)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    const Image im = makeImage(90, 70, 3, 8, false, 21);
    const std::vector<uint8_t> jp2 = opjEncode(im, "-n 3 -OutFor JP2");
    ASSERT_GT(jp2.size(), 12u);
    ASSERT_EQ(jp2[4], 'j'); // the JP2 signature box, not a bare codestream
    pcwt_status st;
    std::string msg;
    EXPECT_TRUE(pcwtDecode(jp2, st, msg) == im.v) << msg;
    ASSERT_EQ(st, PCWT_OK) << msg;
}

// The pcwt tool decodes a JPEG 2000 file (its main header longer than a PCWT header, its length
// not in the header) from a file and from standard input, to the source samples
TEST(J2kFile, PcwtToolDecodes)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    const Image im = makeImage(120, 80, 1, 12, true, 5);
    const std::vector<uint8_t> cs = opjEncode(im, "-n 4 -c [64,64],[32,32] -C a_comment_making_the_main_header_long");
    ASSERT_FALSE(cs.empty());
    TempDir t;
    writeFile(t.path + "/in.j2k", cs);
    for (const std::string &how : {"'" + t.path + "/in.j2k'", "- < '" + t.path + "/in.j2k'"}) {
        const std::string cmd = std::string(PCWT_CLI_PATH) + " decode " + how + " '" + t.path + "/out.raw'";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        const std::vector<uint8_t> raw = readFile(t.path + "/out.raw");
        ASSERT_EQ(raw.size(), im.v.size() * 2);
        for (size_t i = 0; i < im.v.size(); ++i) {
            int16_t v;
            std::memcpy(&v, &raw[2 * i], 2);
            ASSERT_EQ(v, im.v[i]) << how << " sample " << i;
        }
    }
}

// The GPU backend (j2kgpu's pcwt_gpu_j2k_decode_batch) gives the CPU's samples; skips without
// a CUDA build and a device.
TEST_P(J2kStream, GpuEqualsCpu)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress/opj_decompress missing (libopenjp2-tools)";
    {
        std::unique_ptr<pcwt_decoder, void (*)(pcwt_decoder *)> d(pcwt_decoder_create(), pcwt_decoder_destroy);
        if (pcwt_decoder_set_backend(d.get(), PCWT_BACKEND_GPU) != PCWT_OK)
            GTEST_SKIP() << "no GPU backend: " << pcwt_decoder_last_error(d.get());
    }
    const Case &c = GetParam();
    const Image im = makeImage(c.w, c.h, c.comps, c.bits, c.sgn, c.w * 31 + c.bits);
    const std::vector<uint8_t> cs = opjEncode(im, c.args);
    ASSERT_FALSE(cs.empty());
    pcwt_status st;
    std::string msg;
    const std::vector<int32_t> gpu = pcwtDecode(cs, st, msg, PCWT_BACKEND_GPU);
    ASSERT_EQ(st, PCWT_OK) << msg;
    if (c.lossless)
        EXPECT_TRUE(gpu == im.v) << "the GPU's samples are not the source image";
    else
        EXPECT_TRUE(gpu == pcwtDecode(cs, st, msg)) << "the GPU's samples are not the CPU's";
}

INSTANTIATE_TEST_SUITE_P(Opj, J2kStream, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

} // namespace
