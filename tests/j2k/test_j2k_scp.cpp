// pcwt-storescp receives JPEG 2000 from stock storescu (its -xv proposal) and archives PCWT copies
// that decode to the plugin's decoding of what was sent.
#include "j2k_test_util.h"
#include "pacs_util.h"

using namespace j2k;

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

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
