// pcwt-storescp receiving JPEG 2000 and HTJ2K:
//   StoreScpFromStockStorescu       stock storescu (-xv) sends JPEG 2000, PCWT copies archived
//   StoreScpHtj2kFromPcwtStorescu   pcwt-storescu proposes each HTJ2K file's own UID (.201, .202,
//                                   .203; DCMTK 3.6.7 does not know them: archive/lib/netcarrier.h),
//                                   lossless ones archived as PCWT with the source samples, the
//                                   lossy one stored as received (its codestreams unchanged)
//   J2kCorpusNet.StoreScp           every JPEG 2000 / HTJ2K file of the corpus through
//                                   pcwt-storescp (stock storescu where it can send the file,
//                                   pcwt-storescu for HTJ2K and files whose UIDs stock storescu
//                                   cannot read), the copies decoding to the originals
#include "j2k_test_util.h"
#include "pacs_util.h"

using namespace j2k;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

namespace {

// the fragments of a file's pixel data (HTJ2K through its carrier)
std::vector<std::vector<uint8_t>> fragmentsOf(const std::string &path)
{
    std::vector<std::vector<uint8_t>> r;
    DPCWTFileFormat ff;
    DcmPixelSequence *seq = ff.loadFile(path.c_str()).bad() ? nullptr : originalPixelSequence(ff);
    if (!seq)
        return r;
    for (unsigned long i = 1; i < seq->card(); ++i) {
        DcmPixelItem *item = nullptr;
        Uint8 *data = nullptr;
        if (seq->getItem(item, i).bad() || item->getUint8Array(data).bad())
            return {};
        r.emplace_back(data, data + item->getLength());
    }
    return r;
}

bool isHtj2k(const std::string &ts)
{
    return isJ2kUid(ts) && ts != UID_JPEG2000LosslessOnlyTransferSyntax && ts != UID_JPEG2000TransferSyntax;
}

// the SOP class and instance UIDs stock storescu reads from a data set (VR UN: it cannot)
bool stockCanSend(const std::string &path)
{
    DcmFileFormat ff;
    DcmElement *e = nullptr;
    if (ff.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, 4096).bad())
        return false;
    for (const DcmTagKey &k : {DCM_SOPClassUID, DCM_SOPInstanceUID})
        if (ff.getDataset()->findAndGetElement(k, e).bad() || e->ident() != EVR_UI)
            return false;
    return true;
}

// the SOP Instance UID: the data set's, or the meta information's when the data set's is not
// readable as a UID (VR UN)
std::string instanceOf(const std::string &path)
{
    DcmFileFormat ff;
    DcmElement *e = nullptr;
    OFString uid;
    if (ff.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, 256).bad())
        return "";
    if (ff.getDataset()->findAndGetElement(DCM_SOPInstanceUID, e).good() && e->ident() == EVR_UI &&
        e->getOFString(uid, 0).good())
        return uid.c_str();
    ff.getMetaInfo()->findAndGetOFString(DCM_MediaStorageSOPInstanceUID, uid);
    return uid.c_str();
}

} // namespace

// stock storescu sends JPEG 2000 (its -xv proposal) to pcwt-storescp, which archives PCWT copies
TEST(J2kTools, StoreScpFromStockStorescu)
{
    REQUIRE_J2K_TOOLS();
    if (!onPath("storescu"))
        GTEST_SKIP() << "stock DCMTK storescu not on PATH";
    TempDir dir;
    Spec s = plainSpec("scp");
    std::vector<uint8_t> want;
    const std::string file = dir / "scp.dcm";
    ASSERT_EQ(makeFile(s, EXS_JPEG2000LosslessOnly, dir.path(), file, want), "");
    std::vector<std::string> files = {file};
    if (haveCorpus())
        files.push_back(td("pylibjpeg-data/966_fixed_DX.dcm"));
    const std::string root = dir / "archive";
    fs::create_directories(root);
    Server scp;
    ASSERT_TRUE(scp.start({STORESCP_PATH, "--port", "PORT", "-od", root}, dir / "scp.log")) << scp.log();
    std::vector<std::string> argv = {"storescu", "-xv", "127.0.0.1", std::to_string(scp.port())};
    argv.insert(argv.end(), files.begin(), files.end());
    const Proc p = runLimited(argv);
    EXPECT_EQ(p.rc, 0) << p.out;
    scp.stop();
    EXPECT_EQ(filesBelow(root).size(), files.size()) << scp.log();
    for (const std::string &f : files) {
        const std::string dest = archivePath(root, f);
        ASSERT_TRUE(exists(dest)) << scp.log();
        EXPECT_EQ(fileTransferSyntax(dest), PCWT_DICOM_TS_UID);
        // the same attributes, and the samples of the plugin's decoding of what was sent
        expectSameImage(f, dest);
    }
    Pixels ap;
    ASSERT_EQ(loadPixels(archivePath(root, file), ap), "");
    EXPECT_TRUE(ap.bytes == want) << "archived samples differ from the source";
}

// HTJ2K on the wire: pcwt-storescu proposes each file's own HTJ2K UID and sends it as it is;
// pcwt-storescp archives the lossless ones as PCWT (the source samples back) and stores the lossy
// one as received
TEST(J2kTools, StoreScpHtj2kFromPcwtStorescu)
{
    REQUIRE_J2K_TOOLS();
    TempDir dir;
    const std::string in = dir / "in";
    fs::create_directories(in);
    struct Made {
        Spec spec;
        E_TransferSyntax xfer;
        std::string file;
        std::vector<uint8_t> want;
    };
    std::vector<Made> made;
    Spec a = plainSpec("ht_signed_frames", true); // signed 16 bits, two frames, Basic Offset Table
    made.push_back({a, DPCWT_HTJ2K_LOSSLESS_XFER, "", {}});
    Spec b = plainSpec("ht_u12_rpcl", true);
    b.bits = 12;
    b.sgn = false;
    b.frames = 1;
    b.args = {"-prog_order", "RPCL"};
    made.push_back({b, DPCWT_HTJ2K_LOSSLESS_RPCL_XFER, "", {}});
    Spec c = plainSpec("ht_rgb", true);
    c.comps = 3;
    c.bits = 8;
    c.sgn = false;
    c.frames = 1;
    c.table = Spec::None;
    made.push_back({c, DPCWT_HTJ2K_XFER, "", {}});
    Spec d = plainSpec("ht_lossy", true);
    d.bits = 12;
    d.sgn = false;
    d.frames = 1;
    d.htLossy = true;
    d.args = {"-qstep", "0.01"};
    made.push_back({d, DPCWT_HTJ2K_XFER, "", {}});
    for (size_t i = 0; i < made.size(); ++i) {
        Made &m = made[i];
        m.spec.instance = "1.2.826.0.1.3680043.10.1078.2." + std::to_string(i + 1);
        m.file = in + "/" + m.spec.name + ".dcm";
        ASSERT_EQ(makeFile(m.spec, m.xfer, dir.path(), m.file, m.want), "");
        ASSERT_EQ(fileTransferSyntax(m.file), uidOf(m.xfer));
    }

    const std::string root = dir / "archive";
    fs::create_directories(root);
    Server scp;
    ASSERT_TRUE(scp.start({STORESCP_PATH, "-v", "--port", "PORT", "-od", root}, dir / "scp.log")) << scp.log();
    const Proc p = runLimited({STORESCU_PATH, "-v", "127.0.0.1", std::to_string(scp.port()), in});
    EXPECT_EQ(p.rc, 0) << p.out;
    scp.stop();
    const std::string log = scp.log();
    EXPECT_EQ(filesBelow(root).size(), made.size()) << log;
    for (const Made &m : made) {
        SCOPED_TRACE(m.spec.name);
        // sent as it is: no recoding on the way out
        EXPECT_NE(p.out.find("sent " + m.file + " (as is)"), std::string::npos) << p.out;
        const std::string dest = archivePath(root, m.file);
        ASSERT_TRUE(exists(dest)) << log;
        if (m.spec.htLossy) {
            // stored as received: the HTJ2K UID, the codestreams unchanged
            EXPECT_EQ(fileTransferSyntax(dest), std::string(DCMPCWT_HTJ2K_UID));
            const auto sent = fragmentsOf(m.file);
            EXPECT_FALSE(sent.empty());
            EXPECT_TRUE(fragmentsOf(dest) == sent) << "the received codestreams differ from those sent";
            continue;
        }
        EXPECT_EQ(fileTransferSyntax(dest), PCWT_DICOM_TS_UID) << log;
        Pixels ap;
        ASSERT_EQ(loadPixels(dest, ap), "");
        EXPECT_TRUE(ap.bytes == m.want) << "archived samples differ from the source";
        expectSameImage(m.file, dest);
    }
    EXPECT_NE(log.find("High-Throughput JPEG 2000 (Lossless Only) -> PCWT"), std::string::npos) << log;
    EXPECT_EQ(filesBelow(root + "/failed").size(), 0u) << log;
}

// every JPEG 2000 and HTJ2K file of the corpus through pcwt-storescp (--accept-lossy: every file
// coded), each archived copy decoding to its original's samples (pcwt-recompress:
// J2kCorpusTools.RecompressFolder)
TEST(J2kCorpusNet, StoreScp)
{
    const std::vector<CorpusFile> corpus = j2kCorpus();
    if (corpus.empty())
        GTEST_SKIP() << "no JPEG 2000 files under " << kShared << "/testdata or testdata-jpeg2000";
    if (!onPath("storescu"))
        GTEST_SKIP() << "stock DCMTK storescu not on PATH";
    TempDir dir;
    // pcwt-storescp: stock storescu sends .90 (-xv) and .91 (-xw) files, pcwt-storescu the others
    const std::string root = dir / "archive";
    fs::create_directories(root);
    Server scp;
    ASSERT_TRUE(scp.start({STORESCP_PATH, "--port", "PORT", "-od", root, "--accept-lossy"}, dir / "scp.log"))
        << scp.log();
    const std::string port = std::to_string(scp.port());
    std::vector<std::string> lossless = {"storescu", "-xv", "127.0.0.1", port};
    std::vector<std::string> any = {"storescu", "-xw", "127.0.0.1", port};
    std::vector<std::string> ours = {STORESCU_PATH, "-v", "127.0.0.1", port};
    for (const CorpusFile &f : corpus) {
        if (isHtj2k(f.ts) || !stockCanSend(f.path))
            ours.push_back(f.path);
        else
            (f.ts == UID_JPEG2000LosslessOnlyTransferSyntax ? lossless : any).push_back(f.path);
    }
    for (const auto &argv : {lossless, any, ours}) {
        if (argv.size() == 4)
            continue;
        const Proc p = runLimited(argv);
        EXPECT_EQ(p.rc, 0) << p.out;
    }
    scp.stop();
    const std::string log = scp.log();
    EXPECT_EQ(filesBelow(root).size(), corpus.size()) << log;
    // the archived files by their SOP Instance UID
    std::map<std::string, std::string> archived;
    for (const std::string &a : filesBelow(root))
        archived[instanceOf(a)] = a;
    for (const CorpusFile &f : corpus) {
        SCOPED_TRACE(f.name);
        const std::string dest = archived.count(instanceOf(f.path)) ? archived[instanceOf(f.path)] : "";
        ASSERT_FALSE(dest.empty()) << "not archived: " << f.path << "\n" << log;
        EXPECT_EQ(fileTransferSyntax(dest), PCWT_DICOM_TS_UID);
        expectSameDecoded(f.path, dest);
    }
}
