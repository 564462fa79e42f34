// The library's JPEG 2000 decoder on what it must refuse or limit: features it does not decode
// (each PCWT_ERR_UNSUPPORTED with a message naming it, so that callers fall back to OpenJPEG),
// truncated and damaged codestreams (an error or samples, never a read outside the input: the
// ASan build runs these), the decoder's limits, and the batch and verify calls on JPEG 2000 jobs,
// mixed with PCWT codestreams. Skips without libopenjp2-tools.
#include "j2k_opj_util.h"

#include "pcwt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

using namespace j2kt1;

namespace {

using Decoder = std::unique_ptr<pcwt_decoder, void (*)(pcwt_decoder *)>;

Decoder cpuDecoder()
{
    Decoder d(pcwt_decoder_create(), pcwt_decoder_destroy);
    if (d && pcwt_decoder_set_backend(d.get(), PCWT_BACKEND_CPU) != PCWT_OK)
        d.reset();
    return d;
}

// decode with a buffer of the size the header gives (a fixed one when the header is refused),
// under limits that keep a damaged size field from making a large image
pcwt_status decode(const std::vector<uint8_t> &cs, std::string &msg)
{
    Decoder d = cpuDecoder();
    if (pcwt_decoder_set_max_samples(d.get(), 1 << 20) != PCWT_OK ||
        pcwt_decoder_set_memory_limit(d.get(), 64 << 20) != PCWT_OK)
        return PCWT_ERR_INVALID_ARGUMENT;
    pcwt_header_info info;
    size_t size = 1 << 20;
    if (pcwt_read_header(cs.data(), cs.size(), &info) == PCWT_OK)
        size = pcwt_image_size(&info.desc);
    std::vector<uint8_t> out(size ? size : 1);
    const pcwt_status st = pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size());
    msg = pcwt_decoder_last_error(d.get());
    return st;
}

struct Refused {
    const char *name;
    uint32_t w, h, comps, bits;
    const char *args;
    const char *what; // in the message
};

std::ostream &operator<<(std::ostream &o, const Refused &c) { return o << c.name; }

const Refused kRefused[] = {
    {"irreversible97", 64, 64, 1, 12, "-I -n 3", "9/7"},
    {"tiles", 100, 100, 1, 12, "-n 2 -t 32,32", "several tiles"},
    {"image_offset", 64, 64, 1, 12, "-n 2 -d 8,8", "image offset"},
    {"roi", 64, 64, 1, 12, "-n 2 -ROI c=0,U=2", "region of interest"},
    {"poc", 64, 64, 3, 8, "-n 3 -POC T1=0,0,1,4,3,CPRL", "progression order change"},
    {"two_components", 64, 64, 2, 8, "-n 2", "component count"},
    {"four_components", 64, 64, 4, 8, "-n 2", "component count"},
};

class J2kRefused : public ::testing::TestWithParam<Refused> {};

TEST_P(J2kRefused, AsUnsupportedNamingTheFeature)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    const Refused &c = GetParam();
    const Image im = makeImage(c.w, c.h, c.comps, c.bits, false, 7);
    const std::vector<uint8_t> cs = opjEncode(im, c.args);
    ASSERT_FALSE(cs.empty()) << "opj_compress " << c.args;
    std::string msg;
    EXPECT_EQ(decode(cs, msg), PCWT_ERR_UNSUPPORTED) << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(Opj, J2kRefused, ::testing::ValuesIn(kRefused),
                         [](const ::testing::TestParamInfo<Refused> &i) { return std::string(i.param.name); });

// a stream with most of what tier-2 reads: layers, precincts, SOP/EPH, RGB, BYPASS segments
std::vector<uint8_t> richStream(Image &im)
{
    im = makeImage(40, 30, 3, 10, false, 11);
    return opjEncode(im, "-n 3 -r 8,2,1 -c [32,32],[16,16] -b 8,8 -SOP -EPH -M 1 -p RPCL");
}

TEST(J2kDamaged, EveryTruncationRefused)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    Image im;
    const std::vector<uint8_t> cs = richStream(im);
    ASSERT_FALSE(cs.empty());
    std::string msg;
    ASSERT_EQ(decode(cs, msg), PCWT_OK) << msg;
    // OpenJPEG writes the tile-part's length (Psot): any cut before EOC is seen
    for (size_t n = 0; n + 2 < cs.size(); ++n) {
        // a copy of exactly n bytes, so that ASan sees a read past it
        std::vector<uint8_t> cut(cs.begin(), cs.begin() + long(n));
        const pcwt_status st = decode(cut, msg);
        EXPECT_NE(st, PCWT_OK) << "cut at " << n;
        if (n >= 4) {
            EXPECT_TRUE(st == PCWT_ERR_TRUNCATED || st == PCWT_ERR_CORRUPT) << "cut at " << n << ": " << msg;
        }
    }
}

TEST(J2kDamaged, FlippedBytesNeverReadOutside)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    Image im;
    const std::vector<uint8_t> cs = richStream(im);
    ASSERT_FALSE(cs.empty());
    uint64_t x = 0x243F6A8885A308D3ull;
    size_t refused = 0, decoded = 0;
    // every byte of the headers and the first packets three ways, then every 13th byte once
    for (size_t pos = 0; pos < cs.size(); pos += pos < 400 ? 1 : 13)
        for (int k = 0; k < (pos < 400 ? 3 : 1); ++k) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::vector<uint8_t> bad(cs);
            bad[pos] = uint8_t(k == 0 ? bad[pos] ^ (1u << (x % 8)) : k == 1 ? 0xFF : uint8_t(x));
            std::string msg;
            const pcwt_status st = decode(bad, msg);
            if (st == PCWT_OK)
                decoded++;
            else {
                refused++;
                EXPECT_FALSE(msg.empty()) << "no message at byte " << pos;
            }
        }
    // damage in the headers is refused; damage in code-block bytes decodes to other samples
    EXPECT_GT(refused, 0u);
    EXPECT_GT(decoded, 0u);
}

TEST(J2kDamaged, HeaderFieldsOutOfRange)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    const Image im = makeImage(40, 30, 1, 8, false, 5);
    const std::vector<uint8_t> cs = opjEncode(im, "-n 2");
    ASSERT_FALSE(cs.empty());
    std::string msg;
    // SIZ: Xsiz at byte 8, Csiz at 40, Ssiz at 42, XRsiz at 43; COD follows SIZ (FF52 at 41+3)
    auto patched = [&](size_t at, std::initializer_list<uint8_t> b) {
        std::vector<uint8_t> v(cs);
        size_t i = at;
        for (uint8_t x : b)
            v[i++] = x;
        return v;
    };
    EXPECT_EQ(decode(patched(42, {0x7F}), msg), PCWT_ERR_CORRUPT) << msg;  // 128-bit precision
    EXPECT_EQ(decode(patched(42, {0x10}), msg), PCWT_ERR_UNSUPPORTED) << msg; // 17 bits
    EXPECT_EQ(decode(patched(43, {0}), msg), PCWT_ERR_CORRUPT) << msg;     // subsampling 0
    EXPECT_EQ(decode(patched(40, {0, 2}), msg), PCWT_ERR_CORRUPT) << msg;  // Csiz against Lsiz
    EXPECT_EQ(decode(patched(8, {0, 0, 0, 0}), msg), PCWT_ERR_CORRUPT) << msg; // Xsiz 0
    // COD: Lcod at 47, Scod 49, progression 50, layers 51, MCT 53, levels 54, code-blocks 55, 56
    ASSERT_EQ(cs[45], 0xFF);
    ASSERT_EQ(cs[46], 0x52);
    EXPECT_EQ(decode(patched(54, {33}), msg), PCWT_ERR_CORRUPT) << msg;   // 33 levels
    EXPECT_EQ(decode(patched(55, {8, 8}), msg), PCWT_ERR_CORRUPT) << msg; // 1024x1024 code-blocks
    EXPECT_EQ(decode(patched(51, {0, 0}), msg), PCWT_ERR_CORRUPT) << msg; // no layers
    EXPECT_EQ(decode(patched(58, {0}), msg), PCWT_ERR_UNSUPPORTED) << msg; // the 9/7 wavelet
    EXPECT_EQ(decode(patched(50, {9}), msg), PCWT_ERR_CORRUPT) << msg;    // progression order 9
}

TEST(J2kApi, LimitsBatchAndVerify)
{
    if (!haveOpj())
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    const Image im = makeImage(70, 50, 1, 12, true, 9);
    const std::vector<uint8_t> cs = opjEncode(im, "-n 3");
    ASSERT_FALSE(cs.empty());
    EXPECT_STREQ(pcwt_codec_name(PCWT_CODEC_J2K), "jpeg2000");
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    EXPECT_EQ(info.format_version, 0u);
    EXPECT_EQ(info.levels, 2u);
    EXPECT_EQ(info.group_rows, 64u);
    const size_t size = pcwt_image_size(&info.desc);
    ASSERT_EQ(size, 70u * 50 * 2);
    std::vector<uint8_t> out(size);
    Decoder d = cpuDecoder();
    ASSERT_EQ(pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    for (size_t i = 0; i < im.v.size(); ++i) {
        int16_t v;
        std::memcpy(&v, &out[2 * i], 2);
        ASSERT_EQ(v, im.v[i]) << i;
    }
    EXPECT_EQ(pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size() - 1), PCWT_ERR_BUFFER_TOO_SMALL);
    ASSERT_EQ(pcwt_decoder_set_max_samples(d.get(), 70 * 50 - 1), PCWT_OK);
    EXPECT_EQ(pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_LIMIT_EXCEEDED);
    ASSERT_EQ(pcwt_decoder_set_max_samples(d.get(), PCWT_MAX_SAMPLES), PCWT_OK);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(d.get(), 4096), PCWT_OK);
    EXPECT_EQ(pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size()), PCWT_ERR_LIMIT_EXCEEDED);
    EXPECT_NE(std::string(pcwt_decoder_last_error(d.get())).find("memory limit"), std::string::npos);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(d.get(), 0), PCWT_OK);

    // a batch of JPEG 2000 and PCWT codestreams, and a damaged JPEG 2000 one
    std::unique_ptr<pcwt_encoder, void (*)(pcwt_encoder *)> enc(pcwt_encoder_create(), pcwt_encoder_destroy);
    std::vector<uint8_t> pc(pcwt_encode_bound(&info.desc));
    size_t written = 0;
    ASSERT_EQ(pcwt_encode(enc.get(), &info.desc, out.data(), out.size(), pc.data(), pc.size(), &written), PCWT_OK);
    pc.resize(written);
    std::vector<uint8_t> cut(cs.begin(), cs.begin() + long(cs.size() / 2));
    std::vector<std::vector<uint8_t>> outs(4, std::vector<uint8_t>(size));
    pcwt_decode_job jobs[4] = {{cs.data(), cs.size(), outs[0].data(), size, PCWT_OK},
                               {pc.data(), pc.size(), outs[1].data(), size, PCWT_OK},
                               {cut.data(), cut.size(), outs[2].data(), size, PCWT_OK},
                               {cs.data(), cs.size(), outs[3].data(), size, PCWT_OK}};
    EXPECT_EQ(pcwt_decode_batch(d.get(), jobs, 4), PCWT_ERR_TRUNCATED);
    EXPECT_EQ(jobs[0].status, PCWT_OK);
    EXPECT_EQ(jobs[1].status, PCWT_OK);
    EXPECT_EQ(jobs[2].status, PCWT_ERR_TRUNCATED);
    EXPECT_EQ(jobs[3].status, PCWT_OK);
    EXPECT_EQ(outs[0], out);
    EXPECT_EQ(outs[1], out);
    EXPECT_EQ(outs[3], out);

    // several of each kind, a damaged one of each: each job's status, the first failing one's
    // returned with its own message, whichever kind it is
    std::vector<uint8_t> pcut(pc.begin(), pc.begin() + long(pc.size() / 2));
    for (int j2kFirst = 0; j2kFirst < 2; ++j2kFirst) {
        SCOPED_TRACE(j2kFirst ? "the damaged JPEG 2000 codestream first" : "the damaged PCWT codestream first");
        std::vector<std::vector<uint8_t>> o(6, std::vector<uint8_t>(size));
        const std::vector<uint8_t> &bad1 = j2kFirst ? cut : pcut, &bad2 = j2kFirst ? pcut : cut;
        pcwt_decode_job mixed[6] = {{pc.data(), pc.size(), o[0].data(), size, PCWT_OK},
                                    {cs.data(), cs.size(), o[1].data(), size, PCWT_OK},
                                    {bad1.data(), bad1.size(), o[2].data(), size, PCWT_OK},
                                    {pc.data(), pc.size(), o[3].data(), size, PCWT_OK},
                                    {bad2.data(), bad2.size(), o[4].data(), size, PCWT_OK},
                                    {cs.data(), cs.size(), o[5].data(), size, PCWT_OK}};
        const pcwt_status st = pcwt_decode_batch(d.get(), mixed, 6);
        EXPECT_NE(mixed[2].status, PCWT_OK);
        EXPECT_NE(mixed[4].status, PCWT_OK);
        EXPECT_EQ(st, mixed[2].status);
        const std::string msg = pcwt_decoder_last_error(d.get());
        std::string alone;
        {
            std::vector<uint8_t> scratch(size);
            EXPECT_EQ(pcwt_decode(d.get(), bad1.data(), bad1.size(), scratch.data(), size), mixed[2].status);
            alone = pcwt_decoder_last_error(d.get());
        }
        EXPECT_EQ(msg, alone) << "the batch's message is the first failing job's";
        for (int k : {0, 1, 3, 5}) {
            EXPECT_EQ(mixed[k].status, PCWT_OK) << k;
            EXPECT_EQ(o[size_t(k)], out) << k;
        }
    }

    // the memory limit counts a batch's frames together: the least limit one decode passes
    // with refuses a batch of 50
    uint64_t lo = 1, hi = uint64_t(1) << 30;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        ASSERT_EQ(pcwt_decoder_set_memory_limit(d.get(), mid), PCWT_OK);
        if (pcwt_decode(d.get(), cs.data(), cs.size(), out.data(), out.size()) == PCWT_OK)
            hi = mid;
        else
            lo = mid + 1;
    }
    ASSERT_EQ(pcwt_decoder_set_memory_limit(d.get(), lo), PCWT_OK);
    std::vector<std::vector<uint8_t>> many(50, std::vector<uint8_t>(size));
    std::vector<pcwt_decode_job> batch;
    for (auto &m : many)
        batch.push_back({cs.data(), cs.size(), m.data(), size, PCWT_OK});
    EXPECT_EQ(pcwt_decode_batch(d.get(), batch.data(), batch.size()), PCWT_ERR_LIMIT_EXCEEDED);
    EXPECT_EQ(batch[49].status, PCWT_ERR_LIMIT_EXCEEDED);
    ASSERT_EQ(pcwt_decoder_set_memory_limit(d.get(), 0), PCWT_OK);
    EXPECT_EQ(pcwt_decode_batch(d.get(), batch.data(), batch.size()), PCWT_OK);
    EXPECT_EQ(many[49], out);

    std::vector<uint8_t> wrong(out);
    wrong[1234] ^= 1;
    pcwt_verify_job v[3] = {{cs.data(), cs.size(), out.data(), out.size(), 0, PCWT_OK},
                            {cs.data(), cs.size(), wrong.data(), wrong.size(), 0, PCWT_OK},
                            {pc.data(), pc.size(), out.data(), out.size(), 0, PCWT_OK}};
    EXPECT_EQ(pcwt_verify_batch(d.get(), v, 3), PCWT_ERR_MISMATCH);
    EXPECT_EQ(v[0].status, PCWT_OK);
    EXPECT_EQ(v[1].status, PCWT_ERR_MISMATCH);
    EXPECT_EQ(v[1].first_difference, 1234u);
    EXPECT_EQ(v[2].status, PCWT_OK);
}

} // namespace
