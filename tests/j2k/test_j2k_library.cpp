// The library's JPEG 2000 decoder (codec/src/j2k_*.c) against OpenJPEG on every JPEG 2000 frame
// of ../shared/testdata and testdata-jpeg2000: each frame it decodes gives OpenJPEG's samples
// (through the plugin's core, dpj2kcore, with DPJ2K_OPENJPEG); what it reports unsupported is
// counted, and the test prints how many frames it decoded. Skips without the corpus.
#include "j2k_test_util.h"

#include "dpj2kcore.h"
#include "pcwt.h"

#include "dcmtk/dcmdata/dcfilefo.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>

using namespace j2k;
namespace fs = std::filesystem;

namespace {

// the codestreams of a file's frames: a fragment that starts a codestream (SOC SIZ or the JP2
// signature) starts a frame, the fragments after it until the next one continue it
std::vector<std::vector<uint8_t>> frameStreams(const std::string &path)
{
    DPCWTFileFormat ff;
    if (ff.loadFile(path.c_str()).bad())
        return {};
    DcmPixelSequence *seq = originalPixelSequence(ff);
    if (!seq)
        return {};
    std::vector<std::vector<uint8_t>> frames;
    for (unsigned long i = 1; i < seq->card(); ++i) {
        DcmPixelItem *item = nullptr;
        Uint8 *data = nullptr;
        if (seq->getItem(item, i).bad() || item->getUint8Array(data).bad() || !data)
            continue;
        const size_t n = item->getLength();
        if (DPJ2KLooksLikeJ2K(data, n) || frames.empty())
            frames.emplace_back();
        frames.back().insert(frames.back().end(), data, data + n);
    }
    return frames;
}

bool isJ2kFile(const std::string &path)
{
    DcmFileFormat ff;
    if (ff.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, 256).bad())
        return false;
    const std::string ts = metaTransferSyntax(ff);
    return ts == UID_JPEG2000LosslessOnlyTransferSyntax || ts == UID_JPEG2000TransferSyntax ||
           DPCWTCarrierOfUID(ts.c_str()) == DPCWT_HTJ2K_LOSSLESS_XFER ||
           DPCWTCarrierOfUID(ts.c_str()) == DPCWT_HTJ2K_LOSSLESS_RPCL_XFER ||
           DPCWTCarrierOfUID(ts.c_str()) == DPCWT_HTJ2K_XFER;
}

} // namespace

TEST(J2kLibraryCorpus, EveryFrameAsOpenJPEG)
{
    std::vector<std::string> files;
    for (const std::string sub : {"testdata", "testdata-jpeg2000"}) {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(kShared + "/" + sub, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file() && it->path().extension() == ".dcm" && isJ2kFile(it->path().string()))
                files.push_back(it->path().string());
    }
    if (files.empty())
        GTEST_SKIP() << "no JPEG 2000 files under " << kShared << "/testdata or testdata-jpeg2000";
    std::sort(files.begin(), files.end());
    size_t frames = 0, decoded = 0, unsupported = 0, neither = 0;
    std::map<std::string, size_t> why;
    std::unique_ptr<pcwt_decoder, void (*)(pcwt_decoder *)> dec(pcwt_decoder_create(), pcwt_decoder_destroy);
    ASSERT_EQ(pcwt_decoder_set_backend(dec.get(), PCWT_BACKEND_CPU), PCWT_OK);
    for (const std::string &path : files) {
        const std::string name = fs::path(path).filename().string();
        const std::vector<std::vector<uint8_t>> streams = frameStreams(path);
        EXPECT_FALSE(streams.empty()) << name;
        for (size_t f = 0; f < streams.size(); ++f) {
            const std::vector<uint8_t> &cs = streams[f];
            frames++;
            DPJ2KInfo info;
            DPJ2KImage opj;
            std::string error;
            const bool opjOk = DPJ2KReadInfo(cs.data(), cs.size(), info, error) &&
                               DPJ2KDecode(cs.data(), cs.size(), info, opj, error, DPJ2K_OPENJPEG);
            pcwt_header_info hi;
            pcwt_status st = pcwt_read_header(cs.data(), cs.size(), &hi);
            std::vector<uint8_t> ours;
            // a refused header is decoded anyway, for the decoder's message
            ours.resize(st == PCWT_OK ? pcwt_image_size(&hi.desc) : 1);
            st = pcwt_decode(dec.get(), cs.data(), cs.size(), ours.data(), ours.size());
            const std::string msg = pcwt_decoder_last_error(dec.get());
            if (st == PCWT_ERR_UNSUPPORTED) {
                unsupported++;
                why[msg.substr(0, msg.find(" is not decoded"))]++;
                continue;
            }
            if (!opjOk) {
                neither += st != PCWT_OK;
                EXPECT_NE(st, PCWT_OK) << name << " frame " << f << ": ours decodes what OpenJPEG refuses: " << error;
                continue;
            }
            ASSERT_EQ(st, PCWT_OK) << name << " frame " << f << ": " << msg;
            decoded++;
            // OpenJPEG's planes in our layout: interleaved words of the component's precision
            const pcwt_image_desc &d = hi.desc;
            ASSERT_EQ(opj.components(), d.components) << name;
            ASSERT_EQ(opj.width(), d.width) << name;
            ASSERT_EQ(opj.height(), d.height) << name;
            const size_t n = size_t(d.width) * d.height;
            size_t bad = 0;
            for (uint32_t c = 0; c < d.components; ++c) {
                const int32_t *p = opj.plane(c);
                for (size_t i = 0; i < n; ++i) {
                    const size_t k = i * d.components + c;
                    int32_t v;
                    if (d.bits_allocated == 8)
                        v = d.is_signed ? int32_t(int8_t(ours[k])) : int32_t(ours[k]);
                    else {
                        uint16_t w;
                        std::memcpy(&w, &ours[2 * k], 2);
                        v = d.is_signed ? int32_t(int16_t(w)) : int32_t(w);
                    }
                    bad += v != p[i];
                }
            }
            EXPECT_EQ(bad, 0u) << name << " frame " << f << ": samples differ from OpenJPEG's";
        }
    }
    std::printf("JPEG 2000 corpus: %zu frames in %zu files; libpcwt decoded %zu (as OpenJPEG), reported %zu "
                "unsupported, refused %zu that OpenJPEG refuses too\n",
                frames, files.size(), decoded, unsupported, neither);
    for (const auto &w : why)
        std::printf("  unsupported: %zu x %s\n", w.second, w.first.c_str());
    EXPECT_GT(decoded, 0u) << "no corpus frame decoded by libpcwt";
}

// DPJ2K_AUTO: OpenJPEG, unless PCWT_J2K_DECODER says libpcwt (alone) or both (libpcwt decodes
// what it can, OpenJPEG the rest, with libpcwt's reason)
TEST(J2kLibraryCore, AutoFallbackAndEnvironment)
{
    if (std::system("command -v opj_compress >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "opj_compress missing (libopenjp2-tools)";
    TempDir dir;
    auto make = [&](const std::string &name, const std::string &args) {
        Spec s;
        s.name = name;
        s.args = {"-n", "3"};
        if (!args.empty())
            s.args.push_back(args);
        std::vector<uint8_t> cs;
        const std::string err = encode(s, sourceValues(s, 0), dir.path(), cs);
        EXPECT_EQ(err, "");
        return cs;
    };
    const std::vector<uint8_t> lossless = make("lossless", ""), irreversible = make("irreversible", "-I");
    ASSERT_FALSE(lossless.empty());
    ASSERT_FALSE(irreversible.empty());
    auto decoderOf = [](const std::vector<uint8_t> &cs, std::string &reason) {
        DPJ2KInfo info;
        DPJ2KImage image;
        std::string error;
        if (!DPJ2KReadInfo(cs.data(), cs.size(), info, error) || !DPJ2KDecode(cs.data(), cs.size(), info, image, error))
            return "error: " + error;
        reason = image.fallbackReason();
        return std::string(image.decoder());
    };
    std::string reason;
    ::unsetenv("PCWT_J2K_DECODER");
    EXPECT_EQ(decoderOf(lossless, reason), "OpenJPEG");
    EXPECT_EQ(reason, "");
    ::setenv("PCWT_J2K_DECODER", "both", 1);
    EXPECT_EQ(decoderOf(lossless, reason), "libpcwt");
    EXPECT_EQ(reason, "");
    EXPECT_EQ(decoderOf(irreversible, reason), "OpenJPEG");
    EXPECT_NE(reason.find("9/7"), std::string::npos) << reason;
    ::setenv("PCWT_J2K_DECODER", "openjpeg", 1);
    EXPECT_EQ(decoderOf(lossless, reason), "OpenJPEG");
    ::setenv("PCWT_J2K_DECODER", "libpcwt", 1);
    EXPECT_EQ(decoderOf(lossless, reason), "libpcwt");
    EXPECT_EQ(decoderOf(irreversible, reason).rfind("error: libpcwt:", 0), 0u);
    ::unsetenv("PCWT_J2K_DECODER");
}
