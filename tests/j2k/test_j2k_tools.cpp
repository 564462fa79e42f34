// JPEG 2000 / HTJ2K input through the tools:
//   J2kCorpus/*   every JPEG 2000 and HTJ2K file of ../shared/testdata and testdata-jpeg2000 decoded
//                 by the plugin as GDCM (gdcmconv --raw) or, for HTJ2K, OpenJPH (ojph_expand)
//                 decode it (every BitsStored bit of lossless files; lossy ones within 1), with
//                 GDCM's attributes; lossy ones refused by dcmcpcwt without --accept-lossy;
//   J2kTools.*    stock dcmconv with the preload library, damaged codestreams (clear error, no
//                 output, the original untouched by pcwt-recompress), pcwt-recompress of a folder
//                 (lossless recompressed and verified, lossy left unless --accept-lossy);
//   J2kCorpusTools.RecompressFolder   every corpus JPEG 2000 / HTJ2K file through pcwt-recompress;
//   pcwt-storescp receiving JPEG 2000 and HTJ2K: test_j2k_scp.cpp.
#include "j2k_test_util.h"
#include "recompress_util.h"

#include <algorithm>

using namespace j2k;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

// samples as unsigned words of the BitsStored bits, in pixel-interleaved order
std::vector<uint32_t> maskedValues(const Pixels &px)
{
    const uint32_t mask = px.module.bits_stored >= 32 ? ~0u : (1u << px.module.bits_stored) - 1;
    std::vector<uint32_t> v;
    const bool wide = px.module.bits_allocated == 16;
    const size_t n = px.bytes.size() / (wide ? 2 : 1);
    v.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t w = px.bytes[i];
        if (wide) {
            uint16_t h;
            std::memcpy(&h, &px.bytes[2 * i], 2);
            w = h;
        }
        v.push_back(w & mask);
    }
    return v;
}

// how many values differ, and by how much at most (modulo the BitsStored range)
void compareValues(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b, size_t &differ, uint32_t &maxDiff)
{
    differ = 0;
    maxDiff = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i]) {
            ++differ;
            maxDiff = std::max(maxDiff, a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
        }
}

// the first fragment of the file's pixel data (HTJ2K: a single-fragment frame)
std::vector<uint8_t> firstFragment(const std::string &path)
{
    DPCWTFileFormat ff;
    if (ff.loadFile(path.c_str()).bad())
        return {};
    DcmElement *e = nullptr;
    DcmPixelSequence *seq = nullptr;
    DcmPixelItem *item = nullptr;
    Uint8 *data = nullptr;
    E_TransferSyntax key = EXS_Unknown;
    const DcmRepresentationParameter *rp = nullptr;
    if (ff.getDataset()->findAndGetElement(DCM_PixelData, e).bad())
        return {};
    DcmPixelData *pd = static_cast<DcmPixelData *>(e);
    pd->getOriginalRepresentationKey(key, rp);
    if (pd->getEncapsulatedRepresentation(key, rp, seq).bad() || !seq || seq->getItem(item, 1).bad() ||
        item->getUint8Array(data).bad() || !data)
        return {};
    return std::vector<uint8_t>(data, data + item->getLength());
}

class J2kCorpus : public ::testing::TestWithParam<CorpusFile> {};


} // namespace

TEST(J2kCorpusPresent, Files)
{
    if (j2kCorpus().empty())
        GTEST_SKIP() << "no JPEG 2000 files under " << kShared << "/testdata or testdata-jpeg2000";
}

TEST_P(J2kCorpus, AsOtherDecodersAndLossyRefused)
{
    const CorpusFile &f = GetParam();
    TempDir dir;
    DcmFileFormat ff;
    Pixels px;
    ASSERT_EQ(loadPixels(f.path, px, &ff), "") << f.path;
    OFString lossy;
    const bool isLossy = ff.getDataset()->findAndGetOFString(DCM_LossyImageCompression, lossy).good() && lossy == "01";
    const bool ht = DPCWTCarrierOfUID(f.ts.c_str()) != EXS_Unknown;

    // lossy input is refused without --accept-lossy (the codestream decides, not the UID)
    const std::string out = dir / "out.dcm";
    Proc p = run({DCMCPCWT_PATH, f.path, out});
    if (isLossy) {
        EXPECT_NE(p.rc, 0) << p.out;
        EXPECT_NE(p.out.find("lossy"), std::string::npos) << p.out;
        EXPECT_FALSE(exists(out));
    } else {
        EXPECT_EQ(p.rc, 0) << p.out;
    }

    std::vector<uint32_t> ref;
    if (!ht) {
        if (!onPath("gdcmconv"))
            GTEST_SKIP() << "gdcmconv (libgdcm-tools) not installed: no independent decoder";
        const std::string g = dir / "gdcm.dcm";
        p = run({"gdcmconv", "--raw", f.path, g});
        ASSERT_EQ(p.rc, 0) << p.out;
        DcmFileFormat gf;
        Pixels gp;
        ASSERT_EQ(loadPixels(g, gp, &gf), "");
        for (const DcmTagKey &k : {DCM_BitsStored, DCM_HighBit, DCM_PhotometricInterpretation, DCM_PlanarConfiguration,
                                   DCM_LossyImageCompression}) {
            OFString a, b;
            ff.getDataset()->findAndGetOFString(k, a);
            gf.getDataset()->findAndGetOFString(k, b);
            EXPECT_EQ(std::string(a.c_str()), std::string(b.c_str())) << DcmTag(k).getTagName() << " differs from GDCM's";
        }
        ref = maskedValues(gp);
    } else {
        if (!onPath("ojph_expand"))
            GTEST_SKIP() << "ojph_expand (openjph-tools) not installed: no independent HTJ2K decoder";
        const std::vector<uint8_t> cs = firstFragment(f.path);
        ASSERT_FALSE(cs.empty());
        writeBytes(dir / "cs.j2c", cs);
        const bool rgb = px.module.samples_per_pixel == 3;
        const std::string img = dir / (rgb ? "out.ppm" : "out.pgm");
        p = run({"ojph_expand", "-i", dir / "cs.j2c", "-o", img});
        ASSERT_EQ(p.rc, 0) << p.out;
        // PNM: three header fields after the magic, then big-endian samples above 8 bits
        const std::vector<uint8_t> pnm = readBytes(img);
        size_t at = 0;
        for (int fields = 0; fields < 4 && at < pnm.size(); ++fields) {
            while (at < pnm.size() && std::isspace(pnm[at]))
                ++at;
            while (at < pnm.size() && !std::isspace(pnm[at]))
                ++at;
        }
        ++at;
        const bool wide = px.module.bits_allocated == 16;
        for (size_t i = at; i + (wide ? 1 : 0) < pnm.size(); i += wide ? 2 : 1)
            ref.push_back(wide ? (uint32_t(pnm[i]) << 8 | pnm[i + 1]) : pnm[i]);
    }
    const std::vector<uint32_t> mine = maskedValues(px);
    ASSERT_EQ(mine.size(), ref.size());
    size_t differ = 0;
    uint32_t maxDiff = 0;
    compareValues(mine, ref, differ, maxDiff);
    if (isLossy) {
        EXPECT_LE(maxDiff, 1u) << differ << " values differ (lossy: decoders may round differently)";
    } else {
        EXPECT_EQ(differ, 0u) << "lossless: every BitsStored bit must agree; max difference " << maxDiff;
    }
}

INSTANTIATE_TEST_SUITE_P(Files, J2kCorpus, ::testing::ValuesIn(j2kCorpus()),
                         [](const ::testing::TestParamInfo<CorpusFile> &i) { return i.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(J2kCorpus);


// stock dcmconv decompresses JPEG 2000 and HTJ2K with the preload library (DCMTK 3.6.7 has no
// JPEG 2000 decoder and does not know HTJ2K's UIDs)
TEST(J2kTools, PreloadStockDcmconv)
{
    REQUIRE_J2K_TOOLS();
    if (!onPath("dcmconv"))
        GTEST_SKIP() << "stock dcmconv (dcmtk) not on PATH";
    TempDir dir;
    for (const E_TransferSyntax xfer : {EXS_JPEG2000LosslessOnly, DPCWT_HTJ2K_LOSSLESS_XFER, DPCWT_HTJ2K_XFER}) {
        const Spec s = plainSpec("preload", xfer != EXS_JPEG2000LosslessOnly); // signed, two frames
        SCOPED_TRACE(uidOf(xfer));
        std::vector<uint8_t> want;
        const std::string in = dir / "in.dcm", stock = dir / "stock.dcm", out = dir / "out.dcm";
        ASSERT_EQ(makeFile(s, xfer, dir.path(), in, want), "");
        ASSERT_EQ(fileTs(in), uidOf(xfer));
        Proc p = run({"dcmconv", "+te", in, stock});
        EXPECT_NE(p.rc, 0) << "stock dcmconv decodes it without the preload library?";
        p = run({"dcmconv", "+te", in, out}, preloadEnv());
        ASSERT_EQ(p.rc, 0) << p.out;
        DcmFileFormat of;
        ASSERT_TRUE(of.loadFile(out.c_str()).good());
        EXPECT_EQ(metaTransferSyntax(of), UID_LittleEndianExplicitTransferSyntax);
        Pixels px;
        ASSERT_EQ(decodePixels(of.getDataset(), px), "");
        EXPECT_TRUE(px.bytes == want);
    }
}

// damaged codestreams: a clear error naming the problem, no output, no crash; the original kept
TEST(J2kTools, DamagedCodestreams)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    Spec s = plainSpec("damaged");
    s.frames = 1;
    s.table = Spec::None;
    const std::vector<int32_t> v = sourceValues(s, 0);
    std::vector<uint8_t> cs;
    ASSERT_EQ(encode(s, v, dir.path(), cs), "");
    ASSERT_GT(cs.size(), 200u);
    struct Damage {
        std::string name;
        std::vector<uint8_t> bytes;
        bool mustFail; // (damage inside the coded data may still decode: only no crash is asserted)
    };
    std::vector<Damage> damages;
    damages.push_back({"truncated", std::vector<uint8_t>(cs.begin(), cs.begin() + long(cs.size() * 3 / 5)), true});
    damages.push_back({"header_only", std::vector<uint8_t>(cs.begin(), cs.begin() + 60), true});
    std::vector<uint8_t> siz = cs;
    siz[8 + 3] ^= 0x10; // Xsiz: another width than Columns
    damages.push_back({"siz_width", siz, true});
    std::vector<uint8_t> comps = cs;
    comps[40 + 1] = 3; // Csiz: three components for a grey image
    damages.push_back({"siz_components", comps, true});
    std::vector<uint8_t> garbage(cs.size(), 0xA5);
    damages.push_back({"not_j2k", garbage, true});
    std::vector<uint8_t> body = cs;
    for (size_t i = cs.size() / 2; i < cs.size() / 2 + 64; ++i)
        body[i] ^= uint8_t(i * 31);
    damages.push_back({"body_bits", body, false});
    // a JP2 signature box, then a codestream box claiming far more bytes than there are
    static const uint8_t kJp2Head[20] = {0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A,
                                         0x87, 0x0A, 0x7F, 0xFF, 0xFF, 0xF0, 'j',  'p',  '2',  'c'};
    std::vector<uint8_t> jp2(cs.begin(), cs.begin() + 120);
    std::copy(kJp2Head, kJp2Head + 20, jp2.begin());
    damages.push_back({"jp2_box_length", jp2, true});

    for (const Damage &d : damages) {
        SCOPED_TRACE(d.name);
        const std::string in = dir / (d.name + ".dcm"), out = dir / (d.name + ".out.dcm");
        ASSERT_EQ(writeDicom(s, {d.bytes}, EXS_JPEG2000LosslessOnly, in), "");
        const std::vector<uint8_t> before = readBytes(in);
        for (const std::string &tool : {std::string(DCMCPCWT_PATH), std::string(DCMDPCWT_PATH)}) {
            const Proc p = run({tool, in, out});
            EXPECT_LT(p.rc, 128) << "crashed: " << p.out; // a signal, not an error exit
            if (d.mustFail) {
                EXPECT_NE(p.rc, 0) << tool << " accepted a damaged codestream";
                EXPECT_FALSE(exists(out)) << "output left behind";
                EXPECT_TRUE(p.out.find("JPEG 2000") != std::string::npos || p.out.find("OpenJPEG") != std::string::npos ||
                            p.out.find("codestream") != std::string::npos)
                    << p.out;
            }
            std::error_code ec;
            fs::remove(out, ec);
        }
        // pcwt-recompress in place: a failure, the original byte for byte as it was
        const std::string folder = dir / (d.name + "_folder");
        fs::create_directories(folder);
        fs::copy_file(in, folder + "/f.dcm");
        const Proc p = run({kTool, "--threads", "1", folder});
        EXPECT_LT(p.rc, 128) << p.out;
        EXPECT_TRUE(readBytes(folder + "/f.dcm") == before || !d.mustFail) << "original changed";
        if (d.mustFail) {
            EXPECT_NE(p.rc, 0) << p.out;
            EXPECT_TRUE(readBytes(folder + "/f.dcm") == before);
        }
    }
}

// a folder of JPEG 2000 / HTJ2K files: lossless ones recompressed and verified (several threads),
// the lossy one left unless --accept-lossy
TEST(J2kTools, RecompressFolder)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    const std::string in = dir / "in";
    fs::create_directories(in);
    struct Made {
        std::string file;
        std::vector<uint8_t> want;
        bool lossy;
    };
    std::vector<Made> made;
    std::vector<std::pair<Spec, E_TransferSyntax>> specs = {
        {plainSpec("a_lossless_only"), EXS_JPEG2000LosslessOnly},
        {plainSpec("b_j2k_lossless"), EXS_JPEG2000},
        {plainSpec("c_htj2k", true), DPCWT_HTJ2K_LOSSLESS_XFER},
    };
    for (const auto &sp : specs) {
        Made m{sp.first.name + ".dcm", {}, false};
        ASSERT_EQ(makeFile(sp.first, sp.second, dir.path(), in + "/" + m.file, m.want), "");
        made.push_back(m);
    }
    Spec lossy = plainSpec("d_lossy");
    lossy.args = {"-I", "-r", "8"};
    lossy.frames = 1;
    Made lm{"d_lossy.dcm", {}, true};
    ASSERT_EQ(makeFile(lossy, EXS_JPEG2000, dir.path(), in + "/" + lm.file, lm.want), "");
    made.push_back(lm);

    const std::string out = dir / "out", report = dir / "report.json";
    Proc p = run({kTool, "--threads", "2", "--output", out, "--report", report, in});
    EXPECT_EQ(p.rc, 0) << p.out;
    const auto status = reportStatus(report);
    for (const Made &m : made) {
        SCOPED_TRACE(m.file);
        ASSERT_TRUE(status.count(in + "/" + m.file)) << p.out;
        EXPECT_EQ(status.at(in + "/" + m.file), m.lossy ? "unsupported" : "recompressed");
        if (m.lossy)
            continue;
        DcmFileFormat ff;
        Pixels px;
        ASSERT_EQ(loadPixels(out + "/" + m.file, px, &ff), "");
        EXPECT_EQ(metaTransferSyntax(ff), PCWT_DICOM_TS_UID);
        EXPECT_TRUE(px.bytes == m.want) << "recompressed pixels differ from the source";
    }
    const std::vector<uint8_t> reportText = readBytes(report);
    const std::string text(reportText.begin(), reportText.end());
    EXPECT_NE(text.find("JPEG 2000"), std::string::npos) << "input transfer syntax column";
    EXPECT_NE(text.find("High-Throughput JPEG 2000"), std::string::npos);

    // accepted: coded as decoded, marked lossy
    p = run({kTool, "--threads", "2", "--accept-lossy", "--output", dir / "out2", in + "/" + lm.file});
    EXPECT_EQ(p.rc, 0) << p.out;
    DcmFileFormat lf;
    Pixels lp;
    const std::string lossyOut = (dir / "out2") + "/" + lm.file;
    ASSERT_TRUE(exists(lossyOut)) << p.out;
    ASSERT_EQ(loadPixels(lossyOut, lp, &lf), "");
    OFString mark;
    EXPECT_TRUE(lf.getDataset()->findAndGetOFString(DCM_LossyImageCompression, mark).good() && mark == "01");
}

// every JPEG 2000 and HTJ2K file of the corpus recompressed by pcwt-recompress (a folder, 2
// threads, --accept-lossy: every file coded), each copy decoding to its original's samples
// (pcwt-storescp: J2kCorpusNet.StoreScp; dcmcpcwt: tests/dicom's DicomCorpus)
TEST(J2kCorpusTools, RecompressFolder)
{
    const std::vector<CorpusFile> corpus = j2kCorpus();
    if (corpus.empty())
        GTEST_SKIP() << "no JPEG 2000 files under " << kShared << "/testdata or testdata-jpeg2000";
    TempDir dir;
    const std::string in = dir / "in";
    fs::create_directories(in);
    std::map<std::string, std::string> copyOf; // corpus path -> its copy in the input folder
    for (const CorpusFile &f : corpus) {
        copyOf[f.path] = in + "/" + f.name + ".dcm";
        fs::copy_file(f.path, copyOf[f.path]);
    }
    // pcwt-recompress of the folder, 2 threads
    const std::string out = dir / "out", report = dir / "report.json";
    const Proc p = run({kTool, "--threads", "2", "--accept-lossy", "--output", out, "--report", report, in});
    EXPECT_EQ(p.rc, 0) << p.out;
    const auto status = reportStatus(report);
    for (const CorpusFile &f : corpus) {
        SCOPED_TRACE(f.name);
        EXPECT_EQ(status.count(copyOf[f.path]) ? status.at(copyOf[f.path]) : "", "recompressed") << p.out;
        const std::string copy = out + "/" + f.name + ".dcm";
        ASSERT_TRUE(exists(copy));
        EXPECT_EQ(fileTs(copy), PCWT_DICOM_TS_UID);
        expectSameDecoded(f.path, copy);
    }

}
