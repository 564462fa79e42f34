// Tests of pcwt-recompress as a real process on real files: a temporary tree of corpus files
// (CT and MR slices, multi-frame, RGB, JPEG-LS and JPEG lossless input, unsupported images, a
// non-DICOM file, a DICOMDIR file set) recompressed in place and mirrored, resumed, dry-run,
// sharded, reported, fed hostile and read-only files, killed with SIGKILL mid-way, DICOMDIR
// records updated, --keep-smaller. The pipeline's tests: test_recompress_pipeline.cpp; the
// safety tests: test_recompress_safety.cpp. Skips when ../shared/testdata is absent.
#include "recompress_util.h"

static ::testing::Environment *const g_env = ::testing::AddGlobalTestEnvironment(new CodecEnvironment);

TEST(Recompress, Help)
{
    const Proc p = run({kTool, "--help"});
    EXPECT_EQ(p.rc, 0) << p.out;
    for (const char *opt : {"--output", "--keep-originals", "--dry-run", "--shard", "--threads", "--report",
                            "--decompress", "--encode-jpegls", "--gpus", "--batch-frames", "--batch-mb",
                            "--batch-wait", "--keep-smaller", "--verify-gpu", "--coders-per-gpu", "--verifiers-per-gpu"})
        EXPECT_NE(p.out.find(opt), std::string::npos) << opt;
    EXPECT_NE(run({kTool, "--shard", "3/3", "/nonexistent"}).rc, 0);
    EXPECT_NE(run({kTool, "--output"}).rc, 0);
}

TEST(Recompress, InPlaceVerifiedThenResumeSkipsEverything)
{
    REQUIRE_CORPUS();
    Tree t;
    const auto originals = decodeAll(t.root);
    const auto before = snapshot(t.root);
    const std::string report = t.dir / "report.json";
    std::vector<std::string> argv = {kTool, "--threads", "2", "--keep-originals", "--report", report, t.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    expectVerified(t.root, originals, kUnsupported, kPcwtUid);
    EXPECT_TRUE(tempFilesBelow(t.root).empty());

    // the report lists every file, with its status
    const auto status = reportStatus(report);
    EXPECT_EQ(status.size(), before.size()) << p.out;
    for (const auto &f : before) {
        const std::string path = t.root + "/" + f.first;
        ASSERT_TRUE(status.count(path)) << path;
        const std::string &s = status.at(path);
        std::string want = "recompressed";
        if (f.first == "study3/notes.txt")
            want = "skipped-not-dicom";
        else if (f.first == "cd/DICOMDIR")
            want = "skipped-non-image";
        else if (kUnsupported.count(f.first))
            want = "unsupported";
        EXPECT_EQ(s, want) << path;
        // unchanged files are byte-identical (but the DICOMDIR, whose records now name the new
        // transfer syntax), kept originals are the originals
        if (f.first == "cd/DICOMDIR") {
            const auto records = dicomdirRecords(path);
            EXPECT_EQ(records.at("IMAGES/CT1"), kPcwtUid);
            EXPECT_EQ(records.at("IMAGES/MR1"), kPcwtUid);
        } else if (s != "recompressed") {
            EXPECT_TRUE(readBytes(path) == f.second) << path;
        } else {
            EXPECT_TRUE(readBytes(path + ".pcwt-orig") == f.second) << path;
        }
    }
    if (t.dicomdir) {
        EXPECT_EQ(tsOf(t.root + "/cd/IMAGES/CT1"), kPcwtUid);
    }

    // one file through dcmdpcwt: the tool's output decodes with the stock path too
    const std::string out = t.dir / "ct.dcm";
    ASSERT_EQ(run({kDecompress, t.root + "/study1/ct/CT_small.dcm", out}).rc, 0);
    Pixels px;
    ASSERT_EQ(loadPixels(out, px), "");
    EXPECT_TRUE(px.bytes == originals.at("study1/ct/CT_small.dcm").px.bytes);

    // a second run finds everything done and changes nothing
    const auto after = snapshot(t.root);
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_NE(p.out.find(" 0 recompressed"), std::string::npos) << p.out;
    EXPECT_TRUE(snapshot(t.root) == after);
    for (const auto &s : reportStatus(report))
        EXPECT_NE(s.second, "recompressed") << s.first;
}

TEST(Recompress, MirroredJpegLsThenDecompressBack)
{
    REQUIRE_CORPUS();
    Tree t;
    const auto originals = decodeAll(t.root);
    const auto before = snapshot(t.root);
    const std::string jls = t.dir / "jls", back = t.dir / "back";
    std::vector<std::string> argv = {kTool, "+el", "--output", jls, "--copy-others", "--no-progress", t.root};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(snapshot(t.root) == before) << "the input tree changed";
    // RG2 is JPEG-LS already: copied as it is
    std::set<std::string> skip = kUnsupported;
    expectVerified(jls, originals, skip, UID_JPEGLSLosslessTransferSyntax, true);
    EXPECT_TRUE(exists(jls + "/study3/notes.txt"));

    // and back to uncompressed: every sample value as in the original
    argv = {kTool, "--decompress", "--output", back, "--no-progress", jls};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    for (const auto &o : originals) {
        if (skip.count(o.first))
            continue;
        EXPECT_EQ(tsOf(back + "/" + o.first), UID_LittleEndianExplicitTransferSyntax) << o.first;
        Pixels px;
        ASSERT_EQ(loadPixels(back + "/" + o.first, px), "") << o.first;
        EXPECT_TRUE(valuesInterleaved(px) == valuesInterleaved(o.second.px)) << o.first;
    }
    // resumable in mirrored mode: outputs that exist are done
    p = run(argv);
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find(" 0 recompressed"), std::string::npos) << p.out;
}

TEST(Recompress, DryRunChangesNothing)
{
    REQUIRE_CORPUS();
    Tree t;
    const auto before = snapshot(t.root);
    const std::string report = t.dir / "dry.json";
    const std::vector<std::string> argv = {kTool, "--dry-run", "--report", report, t.root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(snapshot(t.root) == before);
    const auto status = reportStatus(report);
    EXPECT_EQ(status.at(t.root + "/study1/ct/CT_small.dcm"), "would-recompress");
    EXPECT_EQ(status.at(t.root + "/study3/sc_rgb_32bit.dcm"), "unsupported");
    EXPECT_EQ(status.size(), before.size());
}

TEST(Recompress, ShardsPartitionTheFiles)
{
    REQUIRE_CORPUS();
    Tree t;
    std::set<std::string> all;
    for (const auto &f : snapshot(t.root))
        all.insert(t.root + "/" + f.first);
    std::set<std::string> seen;
    size_t total = 0;
    const unsigned n = 3;
    for (unsigned i = 0; i < n; ++i) {
        const std::string report = t.dir / ("shard" + std::to_string(i) + ".csv");
        const std::vector<std::string> argv = {kTool, "-n", "--shard", std::to_string(i) + "/" + std::to_string(n),
                                               "--report", report, t.root};
        const Proc p = run(argv);
        ASSERT_EQ(p.rc, 0) << describe(argv, p);
        const std::vector<uint8_t> b = readBytes(report);
        std::stringstream csv(std::string(b.begin(), b.end()));
        std::string line;
        std::getline(csv, line);
        EXPECT_EQ(line.rfind("path,output,status,input_bytes,output_bytes,ratio", 0), 0u) << line;
        while (std::getline(csv, line)) {
            const std::string path = line.substr(0, line.find(','));
            EXPECT_TRUE(seen.insert(path).second) << "in two shards: " << path;
            ++total;
        }
    }
    EXPECT_EQ(seen, all);
    EXPECT_EQ(total, all.size());
}

TEST(Recompress, HostileFilesFailAndStayUntouched)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    const std::vector<uint8_t> ct = readBytes(kTestdata + "/debian-python3-pydicom/CT_small.dcm");
    fs::create_directories(root);
    writeBytes(root + "/truncated.dcm", std::vector<uint8_t>(ct.begin(), ct.begin() + ct.size() * 2 / 3));
    // a header declaring a far larger image than the pixel data holds
    {
        DcmFileFormat ff;
        ASSERT_TRUE(ff.loadFile((kTestdata + "/debian-python3-pydicom/CT_small.dcm").c_str()).good());
        ff.getDataset()->putAndInsertUint16(DCM_Rows, 46341);
        ff.getDataset()->putAndInsertUint16(DCM_Columns, 46341);
        ASSERT_TRUE(ff.saveFile((root + "/short_pixels.dcm").c_str(), EXS_LittleEndianExplicit).good());
    }
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/good.dcm");
    const auto before = snapshot(root);
    const std::string report = d / "r.json";
    const std::vector<std::string> argv = {kTool, "--report", report, root};
    const Proc p = run(argv);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_LT(p.rc, 128) << "crashed";
    const auto status = reportStatus(report);
    EXPECT_EQ(status.at(root + "/truncated.dcm"), "failed");
    EXPECT_EQ(status.at(root + "/short_pixels.dcm"), "failed");
    EXPECT_EQ(status.at(root + "/good.dcm"), "recompressed");
    EXPECT_NE(p.out.find("failed: " + root + "/truncated.dcm"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(root + "/truncated.dcm") == before.at("truncated.dcm"));
    EXPECT_TRUE(readBytes(root + "/short_pixels.dcm") == before.at("short_pixels.dcm"));
    EXPECT_TRUE(tempFilesBelow(root).empty());
}

TEST(Recompress, CopiesThatDoNotVerifyFailAndOriginalsStay)
{
    REQUIRE_CORPUS();
    // a bit flipped in the copy read back (its CRC must catch it) or in the samples it is compared
    // with (the comparison must): by the writers' codec, and by the verifier stage that decodes
    // many files' copies together and compares them (the GPU where there is one)
    for (const std::string fault : {"codestream", "original"}) {
        for (const bool stage : {false, true}) {
            SCOPED_TRACE(fault + (stage ? " --verify-gpu" : ""));
            TempDir d;
            const std::string root = d / "in";
            copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ct.dcm");
            copyFile(kTestdata + "/pydicom-data/emri_small.dcm", root + "/mr/emri_10frames.dcm");
            copyFile(kTestdata + "/pylibjpeg-data/RG2_JLSL.dcm", root + "/cr/rg2.dcm");
            const auto before = snapshot(root);
            const std::string report = d / "r.json";
            std::vector<std::string> argv = {kTool, "--no-progress", "--report", report};
            if (stage)
                argv.push_back("--verify-gpu");
            argv.push_back(root);
            const Proc p = run(argv, {"PCWT_RECOMPRESS_FAULT=" + fault});
            EXPECT_EQ(p.rc, 2) << describe(argv, p);
            const auto status = reportStatus(report);
            ASSERT_EQ(status.size(), before.size()) << p.out;
            for (const auto &f : before) {
                EXPECT_EQ(status.at(root + "/" + f.first), "failed") << f.first;
                EXPECT_TRUE(readBytes(root + "/" + f.first) == f.second) << f.first << " was changed";
            }
            EXPECT_NE(p.out.find(fault == "original" ? "differs from the original" : "verification failed"),
                      std::string::npos) << p.out;
            EXPECT_TRUE(tempFilesBelow(root).empty());
        }
    }
}

TEST(Recompress, ReadOnlyFilesAndFoldersAreReported)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/rofile.dcm");
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/rodir/ct.dcm");
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ok/ct.dcm");
    chmod((root + "/rofile.dcm").c_str(), 0444);
    chmod((root + "/rodir").c_str(), 0555);
    const auto before = snapshot(root);
    const std::vector<std::string> argv = {kTool, root};
    const Proc p = run(argv);
    chmod((root + "/rodir").c_str(), 0755);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_NE(p.out.find("read-only file"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("read-only folder"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(root + "/rofile.dcm") == before.at("rofile.dcm"));
    EXPECT_TRUE(readBytes(root + "/rodir/ct.dcm") == before.at("rodir/ct.dcm"));
    EXPECT_EQ(tsOf(root + "/ok/ct.dcm"), kPcwtUid);
}

TEST(Recompress, KillNineLeavesOriginalsOrVerifiedCopies)
{
    REQUIRE_CORPUS();
    // ~40 files of 0.1 .. 1 MB
    const std::vector<std::pair<std::string, std::string>> set = {
        {"debian-python3-pydicom/CT_small.dcm", "a/ct_small.dcm"},
        {"pydicom-data/693_UNCR_CT.dcm", "a/ct693.dcm"},
        {"pydicom-data/emri_small.dcm", "b/emri.dcm"},
        {"pydicom-data/MR-SIEMENS-DICOM-WithOverlays.dcm", "b/mr_overlays.dcm"},
        {"pydicom-data/US1_UNCR.dcm", "c/us1.dcm"},
        {"pydicom-data/eCT_Supplemental.dcm", "c/ect.dcm"},
        {"wg04/dicom_unc/CT1_UNC.dcm", "d/ct1.dcm"},
        {"wg04/dicom_unc/MR1_UNC.dcm", "d/mr1.dcm"},
    };
    Tree t(set, 5);
    const auto originals = snapshot(t.root);
    const auto decoded = decodeAll(t.root);
    ASSERT_GE(originals.size(), 20u);
    std::mt19937 rng(12345);
    int killed = 0, midway = 0;
    bool late = false; // the last round's run had converted every file before its kill landed
    // the size of every file when a round starts: a size that changes marks a rename of this round
    auto sizes = [&]() {
        std::map<std::string, uintmax_t> m;
        for (const auto &o : originals) {
            std::error_code ec;
            m[o.first] = fs::file_size(t.root + "/" + o.first, ec);
        }
        return m;
    };
    for (int round = 0; round < 4; ++round) {
        const auto start = sizes();
        const pid_t pid = fork();
        if (pid == 0) {
            const int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 1);
            dup2(devnull, 2);
            // small batches (writes between codings) and, every other round, the default batches;
            // the CPU codec, whose run lasts long enough for the kill to land mid-way (a GPU codes
            // this tree before it lands: the writers' commits, what is tested here, are the same)
            execl(kTool.c_str(), kTool.c_str(), "--threads", "1", "--no-progress", "--backend-cpu", "--batch-frames",
                  round % 2 ? "1024" : "3", t.root.c_str(), (char *)nullptr);
            _exit(127);
        }
        // the kill lands a little after this round's first rename (however fast the build: under
        // sanitizers reading and batching take a while), or after 30 s
        int st = 0;
        bool exited = false;
        for (int waited = 0; waited < 6000; ++waited) {
            if (waitpid(pid, &st, WNOHANG) == pid) {
                exited = true;
                break;
            }
            if (sizes() != start)
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (!exited) {
            std::this_thread::sleep_for(std::chrono::milliseconds(late ? 0 : rng() % 40));
            if (kill(pid, SIGKILL) == 0)
                ++killed;
            waitpid(pid, &st, 0);
        }
        // every file is the original or a complete copy that decodes to the original samples
        size_t untouched = 0, converted = 0;
        for (const auto &o : originals) {
            const std::string path = t.root + "/" + o.first;
            ASSERT_TRUE(exists(path)) << "lost: " << path;
            const std::vector<uint8_t> now = readBytes(path);
            if (now == o.second) {
                ++untouched;
                continue;
            }
            ++converted;
            EXPECT_EQ(tsOf(path), kPcwtUid) << "neither original nor PCWT: " << path;
            Pixels px;
            ASSERT_EQ(loadPixels(path, px), "") << path;
            EXPECT_TRUE(px.bytes == decoded.at(o.first).px.bytes) << "pixels differ: " << path;
        }
        if (untouched > 0 && converted > 0)
            ++midway;
        // the next round starts where this one stopped (and must cope with its temporary files);
        // a run that converted everything before the kill (a loaded machine polls late) leaves the
        // next rounds nothing to do, so they start again from the originals, killed at once
        late = untouched == 0;
        if (late)
            for (const auto &o : originals)
                writeBytes(t.root + "/" + o.first, o.second);
    }
    EXPECT_GT(killed, 0);
    EXPECT_GT(midway, 0) << "no kill landed mid-way through a run";
    // a final run finishes the rest and removes the temporary files of the killed runs (and one
    // planted here under the run id of a killed run, listed in the lock file, in case no kill
    // landed inside a write)
    const auto lockText = readBytes(t.root + "/.pcwt-recompress.lock");
    const std::string runId = std::string(lockText.begin(), lockText.end()).substr(4, 16);
    ASSERT_EQ(runId.size(), 16u);
    writeBytes(t.root + "/copy0/a/.ct_small.dcm.pcwt-tmp." + runId + ".AbC123", {1, 2, 3});
    const std::string report = t.dir / "final.json";
    const std::vector<std::string> argv = {kTool, "--threads", "2", "--report", report, t.root};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(tempFilesBelow(t.root).empty());
    for (const auto &o : originals) {
        const std::string path = t.root + "/" + o.first;
        EXPECT_EQ(tsOf(path), kPcwtUid) << path;
        Pixels px;
        ASSERT_EQ(loadPixels(path, px), "") << path;
        EXPECT_TRUE(px.bytes == decoded.at(o.first).px.bytes) << path;
    }
}

TEST(Recompress, DicomdirReferencesAreFollowed)
{
    REQUIRE_CORPUS();
    Tree t;
    if (!t.dicomdir)
        GTEST_SKIP() << "dcmmkdir (dcmtk) could not make a DICOMDIR";
    const auto before = snapshot(t.root);
    const std::string report = t.dir / "dd.json";
    const std::vector<std::string> argv = {kTool, "--report", report, t.root + "/cd/DICOMDIR"};
    const Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    const auto status = reportStatus(report);
    EXPECT_EQ(status.size(), 3u) << p.out; // the DICOMDIR and the two files it references
    EXPECT_EQ(status.at(t.root + "/cd/DICOMDIR"), "skipped-non-image");
    EXPECT_EQ(status.at(t.root + "/cd/IMAGES/CT1"), "recompressed");
    EXPECT_EQ(status.at(t.root + "/cd/IMAGES/MR1"), "recompressed");
    EXPECT_EQ(tsOf(t.root + "/cd/IMAGES/MR1"), kPcwtUid);
    EXPECT_TRUE(readBytes(t.root + "/study1/ct/CT_small.dcm") == before.at("study1/ct/CT_small.dcm"));
}

TEST(Recompress, DicomdirRecordsFollowTheConvertedFiles)
{
    REQUIRE_CORPUS();
    Tree t;
    if (!t.dicomdir)
        GTEST_SKIP() << "dcmmkdir (dcmtk) could not make a DICOMDIR";
    const std::string dd = t.root + "/cd/DICOMDIR";
    const auto records0 = dicomdirRecords(dd);
    ASSERT_EQ(records0.size(), 2u);
    EXPECT_EQ(records0.at("IMAGES/CT1"), UID_LittleEndianExplicitTransferSyntax);
    const std::string ddBefore = t.dir / "DICOMDIR.before";
    writeBytes(ddBefore, readBytes(dd));

    // mirrored with --copy-others: the output DICOMDIR is updated, the input one is not
    const std::string out = t.dir / "out";
    std::vector<std::string> argv = {kTool, "--output", out, "--copy-others", "--no-progress", dd};
    Proc p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_TRUE(readBytes(dd) == readBytes(ddBefore)) << "the input DICOMDIR changed";
    auto records = dicomdirRecords(out + "/DICOMDIR");
    EXPECT_EQ(records.at("IMAGES/CT1"), kPcwtUid);
    EXPECT_EQ(records.at("IMAGES/MR1"), kPcwtUid);
    EXPECT_EQ(tsOf(out + "/IMAGES/MR1"), kPcwtUid);

    // in place, one referenced file read-only (fails, not converted): only the other record changes
    chmod((t.root + "/cd/IMAGES/MR1").c_str(), 0444);
    const std::string report = t.dir / "dd.json";
    argv = {kTool, "--no-progress", "--report", report, dd};
    p = run(argv);
    chmod((t.root + "/cd/IMAGES/MR1").c_str(), 0644);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_EQ(reportStatus(report).at(t.root + "/cd/IMAGES/CT1"), "recompressed");
    EXPECT_EQ(reportStatus(report).at(t.root + "/cd/IMAGES/MR1"), "failed");
    records = dicomdirRecords(dd);
    EXPECT_EQ(records.at("IMAGES/CT1"), kPcwtUid);
    EXPECT_EQ(records.at("IMAGES/MR1"), records0.at("IMAGES/MR1"));
    EXPECT_EQ(reportSummary(report, "dicomdir_records_updated"), 1);
    EXPECT_TRUE(tempFilesBelow(t.root).empty());
    // its permissions are kept (the tree's files are 0644)
    struct stat st;
    ASSERT_EQ(stat(dd.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);

    // a read-only DICOMDIR is reported and left alone (the files are converted all the same)
    chmod(dd.c_str(), 0444);
    const auto roBefore = readBytes(dd);
    p = run(argv);
    chmod(dd.c_str(), 0644);
    EXPECT_EQ(p.rc, 2) << describe(argv, p);
    EXPECT_NE(p.out.find("read-only DICOMDIR"), std::string::npos) << p.out;
    EXPECT_TRUE(readBytes(dd) == roBefore);
    EXPECT_EQ(tsOf(t.root + "/cd/IMAGES/MR1"), kPcwtUid);

    // the next run updates the record of the file converted meanwhile; a third run changes nothing
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    records = dicomdirRecords(dd);
    EXPECT_EQ(records.at("IMAGES/MR1"), kPcwtUid);
    EXPECT_EQ(reportSummary(report, "dicomdir_records_updated"), 1);
    const auto after = readBytes(dd);
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    EXPECT_EQ(reportSummary(report, "dicomdir_records_updated"), 0);
    EXPECT_TRUE(readBytes(dd) == after);
    // the updated DICOMDIR is still read by DCMTK's own tools
    if (onPath("dcmdump")) {
        const Proc dump = run({"dcmdump", "-q", dd});
        EXPECT_EQ(dump.rc, 0) << dump.out;
        EXPECT_NE(dump.out.find(kPcwtUid), std::string::npos) << dump.out;
    }
}

TEST(Recompress, KeepSmallerKeepsOriginalsThatDoNotShrink)
{
    REQUIRE_CORPUS();
    TempDir d;
    const std::string root = d / "in";
    writeNoiseImage(root + "/noise.dcm");
    copyFile(kTestdata + "/debian-python3-pydicom/CT_small.dcm", root + "/ct.dcm");
    const auto before = snapshot(root);

    // without the option the noise image is replaced by a larger copy: the case is real
    {
        TempDir d2;
        const std::string r2 = d2 / "in";
        copyFile(root + "/noise.dcm", r2 + "/noise.dcm");
        const std::string report = d2 / "r.json";
        const Proc p = run({kTool, "--no-progress", "--report", report, r2});
        ASSERT_EQ(p.rc, 0) << p.out;
        EXPECT_EQ(reportStatus(report).at(r2 + "/noise.dcm"), "recompressed");
        EXPECT_GT(fs::file_size(r2 + "/noise.dcm"), before.at("noise.dcm").size());
    }

    // mirrored: the original goes to the output tree as it is (also when the verifier stage
    // compares the copies and the writers take its verdicts later)
    std::vector<std::string> argv;
    Proc p;
    for (const bool stage : {false, true}) {
        const std::string out = d / (stage ? "out-vg" : "out"), mreport = d / (stage ? "mvg.json" : "m.json");
        argv = {kTool, "--keep-smaller", "--output", out, "--no-progress", "--report", mreport, root};
        if (stage)
            argv.insert(argv.begin() + 1, "--verify-gpu");
        p = run(argv);
        ASSERT_EQ(p.rc, 0) << describe(argv, p);
        EXPECT_EQ(reportStatus(mreport).at(root + "/noise.dcm"), "kept-original-not-smaller");
        EXPECT_TRUE(readBytes(out + "/noise.dcm") == before.at("noise.dcm"));
        EXPECT_EQ(tsOf(out + "/ct.dcm"), kPcwtUid);
        EXPECT_TRUE(tempFilesBelow(out).empty());
    }

    // in place
    const std::string report = d / "r.json";
    argv = {kTool, "--keep-smaller", "--no-progress", "--report", report, root};
    p = run(argv);
    ASSERT_EQ(p.rc, 0) << describe(argv, p);
    const auto status = reportStatus(report);
    EXPECT_EQ(status.at(root + "/noise.dcm"), "kept-original-not-smaller");
    EXPECT_EQ(status.at(root + "/ct.dcm"), "recompressed");
    EXPECT_EQ(reportSummary(report, "kept-original-not-smaller"), 1);
    EXPECT_TRUE(readBytes(root + "/noise.dcm") == before.at("noise.dcm"));
    EXPECT_EQ(tsOf(root + "/ct.dcm"), kPcwtUid);
    EXPECT_LT(fs::file_size(root + "/ct.dcm"), before.at("ct.dcm").size());
    EXPECT_NE(p.out.find("kept as they were"), std::string::npos) << p.out;
    EXPECT_TRUE(tempFilesBelow(root).empty());
}
