// Tests of PACS ingestion as real processes on loopback (127.0.0.1, free ports picked at run
// time): stock DCMTK storescu sends corpus files in several transfer syntaxes, from several
// processes at once, to pcwt-storescp, which archives them compressed; failures are answered with
// a failure status and the server keeps running; pcwt-storescu sends archive files to a stock
// DCMTK storescp accepting only uncompressed, then one accepting JPEG-LS. Every server is killed
// at the end of its test. --profile entropy archives profile-1 codestreams. Skips when
// ../shared/testdata or the stock tools are absent.
#include "pacs_util.h"

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

// Stock storescu, 8 processes at once, in explicit LE, implicit LE, JPEG-LS and JPEG lossless:
// every instance archived once, in the private syntax, in its folder, same samples and attributes.
TEST(PacsStoreScp, IngestsFromConcurrentStorescu)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"-v"})) << scp.log();
    const std::string port = std::to_string(scp.port());

    struct Batch {
        std::string option;
        std::vector<std::string> files;
    };
    const std::vector<Batch> batches = {
        {"-xe", {td("dcm_qa_ct/GE_CT_series/01.dcm"), td("dcm_qa_ct/GE_CT_series/02.dcm"),
                 td("wg04/dicom_unc/MR3_UNC.dcm"), td("pydicom-data/US1_UNCR.dcm"),
                 td("pydicom-data/OBXXXX1A_2frame.dcm")}},
        // (implicit VR: no private attributes here, whose VR would not survive the transfer)
        {"-xi", {td("debian-python3-pydicom/MR_small_bigendian.dcm"), td("pydicom-data/gdcm-US-ALOKA-16.dcm")}},
        {"-xt", {td("pylibjpeg-data/RG2_JLSL.dcm"), td("debian-python3-pydicom/CT_small.dcm")}},
        {"-xs", {td("pylibjpeg-data/JPEGLosslessP14SV1_1s_1f_u_08_08_US8bit.dcm"), td("dcm_qa_ct/GE_CT_series/03.dcm")}},
        {"-xe", {td("dcm_qa_ct/GE_CT_series/04.dcm"), td("dcm_qa_ct/GE_CT_series/05.dcm")}},
        {"-xe", {td("dcm_qa_ct/GE_CT_series/06.dcm"), td("wg04/dicom_unc/CT1_UNC.dcm")}},
        {"-xe", {td("dcm_qa_ct/GE_CT_series/07.dcm"), td("wg04/dicom_unc/NM1_UNC.dcm")}},
        {"-xe", {td("dcm_qa_ct/GE_CT_series/08.dcm"), td("wg04/dicom_unc/XA1_UNC.dcm")}},
    };
    std::vector<std::string> all;
    std::vector<Proc> results(batches.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < batches.size(); ++i) {
        for (const std::string &f : batches[i].files)
            if (exists(f))
                all.push_back(f);
        threads.emplace_back([&, i] {
            std::vector<std::string> argv = {"storescu", batches[i].option, "127.0.0.1", port};
            for (const std::string &f : batches[i].files)
                if (exists(f))
                    argv.push_back(f);
            results[i] = runLimited(argv, 90);
        });
    }
    for (std::thread &t : threads)
        t.join();
    for (size_t i = 0; i < batches.size(); ++i) {
        EXPECT_EQ(results[i].rc, 0) << "storescu " << batches[i].option << ": " << results[i].out;
        EXPECT_EQ(results[i].out.find("Store Failed"), std::string::npos) << results[i].out;
    }
    EXPECT_TRUE(scp.running()) << scp.log();

    // every instance once, where it belongs, compressed and verified
    std::vector<std::string> archived = filesBelow(scp.root);
    archived.erase(std::remove_if(archived.begin(), archived.end(),
                                  [&](const std::string &p) { return p.find("/.incoming/") != std::string::npos; }),
                   archived.end());
    std::set<std::string> destinations; // (the corpus files are distinct instances)
    for (const std::string &f : all)
        destinations.insert(archivePath(scp.root, f));
    ASSERT_EQ(destinations.size(), all.size());
    EXPECT_EQ(archived.size(), all.size()) << scp.log();
    EXPECT_TRUE(filesBelow(scp.root + "/.incoming").empty()) << "staging files left";
    EXPECT_FALSE(fs::exists(scp.root + "/failed")) << scp.log();
    for (const std::string &f : all) {
        const std::string dest = archivePath(scp.root, f);
        ASSERT_TRUE(exists(dest)) << f << " not archived as " << dest << "\n" << scp.log();
        EXPECT_EQ(fileTransferSyntax(dest), kPcwtUid) << dest;
        expectSameImage(f, dest);
    }
    scp.stop();
}

// --target jpegls: standard JPEG-LS Lossless in the archive; a non-image object is stored as received
TEST(PacsStoreScp, TargetJpegls)
{
    REQUIRE_SETUP();
    ArchiveScp scp; // (started by hand: the port is given with --port here)
    ASSERT_TRUE(scp.start({kStoreScp, "--port", "PORT", "-od", scp.root, "--target", "jpegls", "-aet", "ARCHIVE"},
                          scp.tmp / "scp.log"))
        << scp.log();
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm");
    const std::string rgb = td("pydicom-data/US1_UNCR.dcm");
    const Proc p = runLimited({"storescu", "-aec", "ARCHIVE", "127.0.0.1", std::to_string(scp.port()), ct, rgb});
    EXPECT_EQ(p.rc, 0) << p.out;
    for (const std::string &f : {ct, rgb}) {
        const std::string dest = archivePath(scp.root, f);
        ASSERT_TRUE(exists(dest)) << scp.log();
        EXPECT_EQ(fileTransferSyntax(dest), UID_JPEGLSLosslessTransferSyntax);
        expectSameImage(f, dest, true);
    }
    scp.stop();
}

// --profile entropy: every archived frame is a profile-1 codestream; same samples and attributes
TEST(PacsStoreScp, ProfileEntropy)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"--profile", "entropy", "-v"})) << scp.log();
    const std::vector<std::string> files = {td("debian-python3-pydicom/CT_small.dcm"), td("pydicom-data/US1_UNCR.dcm"),
                                            td("pydicom-data/OBXXXX1A_2frame.dcm")};
    std::vector<std::string> argv = {"storescu", "127.0.0.1", std::to_string(scp.port())};
    for (const std::string &f : files)
        if (exists(f))
            argv.push_back(f);
    const Proc p = runLimited(argv);
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(scp.log().find("(entropy profile)"), std::string::npos) << scp.log();
    for (size_t i = 3; i < argv.size(); ++i) {
        const std::string dest = archivePath(scp.root, argv[i]);
        ASSERT_TRUE(exists(dest)) << argv[i] << " not archived\n" << scp.log();
        EXPECT_EQ(fileTransferSyntax(dest), kPcwtUid) << dest;
        DcmFileFormat ff;
        ASSERT_TRUE(ff.loadFile(argv[i].c_str()).good());
        pcwt_dicom_pixel_module m;
        readModule(ff.getDataset(), m);
        EXPECT_EQ(expectProfile(dest, PCWT_PROFILE_ENTROPY, m.number_of_frames), "") << dest;
        expectSameImage(argv[i], dest);
    }
    scp.stop();
}

// an unknown --profile, or --profile with --target jpegls: a one-line error and a non-zero exit
// before anything listens
TEST(PacsStoreScp, ProfileOptionErrors)
{
    TempDir tmp;
    const std::vector<std::vector<std::string>> bad = {
        {kStoreScp, "--profile", "fast", "-od", tmp.path(), "11112"},
        {kStoreScp, "--target", "jpegls", "--profile", "entropy", "-od", tmp.path(), "11112"}};
    for (const auto &argv : bad) {
        const Proc p = runLimited(argv, 20);
        EXPECT_NE(p.rc, 0) << describe(argv, p);
        EXPECT_LT(p.rc, 124) << describe(argv, p);
        size_t errors = 0;
        std::istringstream in(p.out);
        std::string line;
        while (std::getline(in, line))
            if (line.compare(0, 6, "error:") == 0) {
                ++errors;
                EXPECT_NE(line.find("--profile"), std::string::npos) << line;
            }
        EXPECT_EQ(errors, 1u) << describe(argv, p);
    }
    EXPECT_TRUE(filesBelow(tmp.path()).empty());
}

// failures: an unsupported 32-bit image with --reject-unsupported, and an archive folder that
// cannot be created; storescu sees a failure status, the received originals are kept under
// failed/, and the server goes on storing
TEST(PacsStoreScp, FailureStatusAndKeepsRunning)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"--reject-unsupported"})) << scp.log();
    const std::string port = std::to_string(scp.port());

    const std::string rgb32 = td("pydicom-data/SC_rgb_32bit.dcm");
    // (storescu exits with the high byte of the last failure status)
    Proc p = runLimited({"storescu", "-v", "127.0.0.1", port, rgb32});
    EXPECT_EQ(p.rc, 0xc0) << p.out;
    EXPECT_NE(p.out.find("Received Store Response (Error: CannotUnderstand)"), std::string::npos) << p.out;
    EXPECT_FALSE(exists(archivePath(scp.root, rgb32)));

    // the patient folder of CT_small is a file: the archive path cannot be created
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm");
    const std::string dest = archivePath(scp.root, ct);
    const std::string patientDir = dest.substr(0, dest.find('/', scp.root.size() + 1));
    writeBytes(patientDir, {'x'});
    p = runLimited({"storescu", "-v", "127.0.0.1", port, ct});
    EXPECT_EQ(p.rc, 0xa7) << p.out;
    EXPECT_NE(p.out.find("Received Store Response (Refused: OutOfResources)"), std::string::npos) << p.out;

    // both originals are kept under failed/, byte for byte what was received
    const std::vector<std::string> failed = filesBelow(scp.root + "/failed");
    EXPECT_EQ(failed.size(), 2u) << scp.log();
    for (const std::string &f : failed) {
        Pixels px;
        EXPECT_EQ(loadPixels(f, px), "") << f;
    }

    // and the server is still there
    EXPECT_TRUE(scp.running()) << scp.log();
    const std::string mr = td("debian-python3-pydicom/MR_small_bigendian.dcm");
    p = runLimited({"storescu", "127.0.0.1", port, mr});
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_TRUE(exists(archivePath(scp.root, mr))) << scp.log();
    scp.stop();
}

// pcwt-storescu sends PCWT archive files to a stock storescp: one accepting only uncompressed,
// then one preferring JPEG-LS; what arrives decodes to the originals' samples
TEST(PacsStoreScu, ToStockStorescp)
{
    REQUIRE_SETUP();
    TempDir tmp;
    const std::string archive = tmp / "archive";
    fs::create_directories(archive);
    const std::vector<std::string> originals = {
        td("debian-python3-pydicom/CT_small.dcm"), td("pydicom-data/US1_UNCR.dcm"),
        td("pydicom-data/OBXXXX1A_2frame.dcm"), td("debian-python3-pydicom/MR_small_bigendian.dcm"),
        td("pydicom-data/color-pl_PC1.dcm")};
    std::map<std::string, std::string> bySop; // SOP Instance UID -> original
    for (size_t i = 0; i < originals.size(); ++i) {
        const std::string out = archive + "/" + std::to_string(i) + ".dcm";
        const Proc c = run({kCompress, originals[i], out});
        ASSERT_EQ(c.rc, 0) << c.out;
        ASSERT_EQ(fileTransferSyntax(out), kPcwtUid);
        DcmFileFormat ff;
        ASSERT_TRUE(ff.loadFile(originals[i].c_str()).good());
        bySop[attr(ff.getDataset(), DCM_SOPInstanceUID)] = originals[i];
    }
    // an unsupported image stays as it was (explicit VR little endian)
    const std::string rgb32 = td("pydicom-data/SC_rgb_32bit.dcm");
    writeBytes(archive + "/rgb32.dcm", readBytes(rgb32));
    {
        DcmFileFormat ff;
        ASSERT_TRUE(ff.loadFile(rgb32.c_str()).good());
        bySop[attr(ff.getDataset(), DCM_SOPInstanceUID)] = rgb32;
    }

    for (const bool jpegls : {false, true}) {
        SCOPED_TRACE(jpegls ? "storescp +xt" : "storescp +xe");
        const std::string recv = tmp / (jpegls ? "recv-jls" : "recv-unc");
        fs::create_directories(recv);
        Server stock;
        ASSERT_TRUE(stock.start({"storescp", jpegls ? "+xt" : "+xe", "-od", recv, "PORT"}, recv + ".log"))
            << stock.log();
        const Proc s = runLimited({kStoreScu, "-v", "127.0.0.1", std::to_string(stock.port()), archive});
        EXPECT_EQ(s.rc, 0) << s.out;
        stock.stop();
        const std::vector<std::string> got = filesBelow(recv);
        EXPECT_EQ(got.size(), bySop.size()) << s.out << stock.log();
        for (const std::string &g : got) {
            DcmFileFormat ff;
            ASSERT_TRUE(ff.loadFile(g.c_str()).good());
            const std::string sop = attr(ff.getDataset(), DCM_SOPInstanceUID);
            ASSERT_TRUE(bySop.count(sop)) << g;
            const std::string ts = metaTransferSyntax(ff);
            const bool isRgb32 = bySop[sop] == rgb32;
            if (jpegls && !isRgb32)
                EXPECT_EQ(ts, UID_JPEGLSLosslessTransferSyntax) << g;
            else
                EXPECT_TRUE(ts == UID_LittleEndianExplicitTransferSyntax || ts == UID_LittleEndianImplicitTransferSyntax)
                    << g << ": " << ts;
            expectSameImage(bySop[sop], g, jpegls && !isRgb32);
        }
    }
}
