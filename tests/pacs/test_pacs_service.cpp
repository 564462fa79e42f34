// pcwt-storescp as a service (issue 37): each refusal gets the status of the DICOM standard and
// nothing is archived for it (pixel data that contradicts the image pixel module: rows halved,
// BitsAllocated 8 on 16-bit data, 1000 bytes too many, BitsStored 17, a lying NumberOfFrames);
// a data set over --max-object-size aborts the association while it comes in; stalled peers
// (silent TCP connections, idle associations) do not keep a well-behaved sender out beyond the
// timeouts; --bind, --calling-aet, TLS (+tls) with certificates made by openssl. Real processes
// on loopback, free ports; skips when the corpus, the stock tools or openssl are absent.
#include "pacs_util.h"
#include "../sanitizer.h"

#include "dcmtk/dcmnet/assoc.h"

#include <csignal>
#include <functional>
#include <memory>
#include <thread>

// (the codecs are registered by test_pacs.cpp's environment, once for the binary)

namespace {

const std::string kCT = "dcm_qa_ct/GE_CT_series/01.dcm"; // 512 x 512, 16 bits

// a copy of src, edited, written in Explicit VR Little Endian
std::string variant(const std::string &src, const std::string &out, const std::function<void(DcmDataset *)> &edit)
{
    DcmFileFormat ff;
    if (ff.loadFile(src.c_str()).bad() || ff.loadAllDataIntoMemory().bad())
        return "";
    edit(ff.getDataset());
    if (ff.saveFile(out.c_str(), EXS_LittleEndianExplicit).bad())
        return "";
    return out;
}

// Pixel Data of n bytes (a pattern), as OW
void setPixels(DcmDataset *ds, size_t n)
{
    std::vector<Uint16> w((n + 1) / 2);
    for (size_t i = 0; i < w.size(); ++i)
        w[i] = static_cast<Uint16>(i * 7);
    ds->putAndInsertUint16Array(DCM_PixelData, w.data(), static_cast<unsigned long>(w.size()));
}

bool archived(const std::string &root)
{
    for (const std::string &f : filesBelow(root))
        if (f.find("/failed/") == std::string::npos && f.find("/.incoming/") == std::string::npos)
            return true;
    return false;
}

// an association that is negotiated and then sends nothing (a stalled sender)
struct IdleAssociation {
    T_ASC_Network *net = nullptr;
    T_ASC_Association *assoc = nullptr;
    bool open(int port)
    {
        if (ASC_initializeNetwork(NET_REQUESTOR, 0, 10, &net).bad())
            return false;
        T_ASC_Parameters *params = nullptr;
        if (ASC_createAssociationParameters(&params, ASC_DEFAULTMAXPDU).bad())
            return false;
        ASC_setAPTitles(params, "IDLE", "PCWT_STORESCP", nullptr);
        ASC_setPresentationAddresses(params, "localhost", ("127.0.0.1:" + std::to_string(port)).c_str());
        const char *ts[] = {UID_LittleEndianExplicitTransferSyntax};
        ASC_addPresentationContext(params, 1, UID_VerificationSOPClass, ts, 1);
        if (ASC_requestAssociation(net, params, &assoc).bad()) {
            if (assoc == nullptr)
                ASC_destroyAssociationParameters(&params);
            return false;
        }
        return ASC_countAcceptedPresentationContexts(params) == 1;
    }
    ~IdleAssociation()
    {
        if (assoc) {
            ASC_abortAssociation(assoc);
            ASC_destroyAssociation(&assoc);
        }
        if (net)
            ASC_dropNetwork(&net);
    }
};

// a TCP connection that sends nothing
int silentConnection(int port)
{
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        close(s);
        return -1;
    }
    return s;
}

// VmHWM of a process in KiB (0 when unknown)
long peakKiB(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, 6, "VmHWM:") == 0)
            return std::atol(line.c_str() + 6);
    return 0;
}

} // namespace

// Pixel data that contradicts the image pixel module never gets Success: 0xA900 (Data Set Does
// Not Match SOP Class), nothing archived, the original kept under failed/; the server goes on.
TEST(PacsService, InconsistentPixelDataRefused)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    const std::string ct = td(kCT);
    if (!exists(ct))
        GTEST_SKIP() << ct << " absent";
    const std::vector<std::pair<std::string, std::function<void(DcmDataset *)>>> cases = {
        {"rows-halved", [](DcmDataset *ds) { ds->putAndInsertUint16(DCM_Rows, 256); }},
        {"ba8-on-16bit",
         [](DcmDataset *ds) {
             ds->putAndInsertUint16(DCM_BitsAllocated, 8);
             ds->putAndInsertUint16(DCM_BitsStored, 8);
             ds->putAndInsertUint16(DCM_HighBit, 7);
         }},
        {"extra-1000-bytes", [](DcmDataset *ds) { setPixels(ds, 512 * 512 * 2 + 1000); }},
        {"too-short", [](DcmDataset *ds) { setPixels(ds, 512 * 512 * 2 - 1000); }},
        {"bits-stored-17", [](DcmDataset *ds) { ds->putAndInsertUint16(DCM_BitsStored, 17); }},
        {"lying-frames", [](DcmDataset *ds) { ds->putAndInsertOFStringArray(DCM_NumberOfFrames, "3"); }},
    };
    ASSERT_TRUE(scp.listen({"-v"})) << scp.log();
    for (const auto &c : cases) {
        SCOPED_TRACE(c.first);
        const std::string f = variant(ct, scp.tmp / (c.first + ".dcm"), c.second);
        ASSERT_FALSE(f.empty());
        const Proc p = runLimited({"storescu", "-v", "127.0.0.1", std::to_string(scp.port()), f});
        EXPECT_EQ(p.rc, 0xa9) << p.out;
        EXPECT_NE(p.out.find("Error: DataSetDoesNotMatchSOPClass"), std::string::npos) << p.out;
        EXPECT_FALSE(archived(scp.root)) << scp.log();
    }
    EXPECT_EQ(filesBelow(scp.root + "/failed").size(), cases.size());
    // the unmodified file is still stored
    const Proc p = runLimited({"storescu", "127.0.0.1", std::to_string(scp.port()), ct});
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_TRUE(exists(archivePath(scp.root, ct))) << scp.log();
}

// A 5 MB data set with --max-object-size 1M: the association is aborted while it comes in (the
// sender sees a failure), nothing archived or kept, the staging folder empty, the server's peak
// memory well below the object's size; a small one goes through afterwards.
TEST(PacsService, OversizeObjectAborted)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    const std::string big = variant(td("debian-python3-pydicom/CT_small.dcm"), scp.tmp / "big.dcm", [](DcmDataset *ds) {
        ds->putAndInsertUint16(DCM_Rows, 1600);
        ds->putAndInsertUint16(DCM_Columns, 1600);
        setPixels(ds, 1600 * 1600 * 2);
    });
    ASSERT_FALSE(big.empty());
    ASSERT_TRUE(scp.listen({"--max-object-size", "1M", "-v"})) << scp.log();
    const Proc p = runLimited({"storescu", "-v", "127.0.0.1", std::to_string(scp.port()), big}, 60);
    EXPECT_NE(p.rc, 0) << p.out;
    EXPECT_EQ(p.out.find("Received Store Response (Success)"), std::string::npos) << p.out;
    EXPECT_NE(scp.log().find("--max-object-size"), std::string::npos) << scp.log();
    // the server removes the partial data set once its receiving call returns, which can be after
    // the sender saw the abort (under load it was not yet gone when storescu exited): wait for that
    // (bounded), then nothing may be left
    for (int i = 0; i < 200 && !filesBelow(scp.root + "/.incoming").empty(); ++i) // up to 10 s
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(filesBelow(scp.root + "/.incoming").empty());
    EXPECT_FALSE(archived(scp.root));
    EXPECT_TRUE(filesBelow(scp.root + "/failed").empty());
    EXPECT_TRUE(scp.running());
    const Proc q = runLimited({"storescu", "127.0.0.1", std::to_string(scp.port()), td("debian-python3-pydicom/CT_small.dcm")});
    EXPECT_EQ(q.rc, 0) << q.out;
    EXPECT_TRUE(archived(scp.root)) << scp.log();
    // (the 5 MB never sat in memory: the server's peak stays below 4 times its size). Not under
    // AddressSanitizer, whose shadow memory and quarantine of freed blocks (each received PDU)
    // raise the resident size by more than the object itself.
    const long kib = peakKiB(scp.pid());
    if (kib > 0 && !kAddressSanitizer) {
        EXPECT_LT(kib, 4 * 5000) << "peak " << kib << " KiB";
    }
}

// The timeouts are on by default, and said so.
TEST(PacsService, DefaultLimitsLogged)
{
    TempDir tmp;
    Server scp;
    ASSERT_TRUE(scp.start({kStoreScp, "PORT", "-od", tmp.path(), "-v"}, tmp / "scp.log")) << scp.log();
    scp.stop();
    const std::string log = scp.log();
    EXPECT_NE(log.find("timeouts ACSE 30 s, DIMSE 60 s, network 60 s"), std::string::npos) << log;
    EXPECT_NE(log.find("8 associations"), std::string::npos) << log;
}

// Two idle associations (all of --max-associations 2) and sixteen silent TCP connections: a
// well-behaved storescu is refused (busy) or waits, and gets through once the DIMSE and ACSE
// timeouts (3 s, 2 s) have ended them: within 12 s, where it took 32 s or more while each
// silent connection held the listener in turn.
TEST(PacsService, StalledPeersDoNotLockOut)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"--max-associations", "2", "-ta", "2", "-td", "3"})) << scp.log();
    // The start's readiness probe (a bare TCP connection) holds a slot until the server has seen it
    // close, so the first associations may be refused as busy for a moment: try again briefly.
    auto openIdle = [&](std::unique_ptr<IdleAssociation> &a) {
        for (int i = 0; i < 40; ++i) {
            a.reset(new IdleAssociation);
            if (a->open(scp.port()))
                return true;
            a.reset();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    };
    std::unique_ptr<IdleAssociation> idle[2];
    for (std::unique_ptr<IdleAssociation> &a : idle)
        ASSERT_TRUE(openIdle(a)) << scp.log();
    std::vector<int> silent;
    for (int i = 0; i < 16; ++i)
        silent.push_back(silentConnection(scp.port()));
    const auto t0 = std::chrono::steady_clock::now();
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm");
    bool stored = false;
    int attempts = 0;
    while (!stored && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(12)) {
        ++attempts;
        const Proc p = runLimited({"storescu", "-ta", "30", "127.0.0.1", std::to_string(scp.port()), ct}, 40);
        stored = p.rc == 0;
        if (!stored)
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int fd : silent)
        if (fd >= 0)
            close(fd);
    EXPECT_TRUE(stored) << attempts << " attempts in " << s << " s\n" << scp.log();
    EXPECT_LT(s, 12.0);
    EXPECT_TRUE(exists(archivePath(scp.root, ct)));
    EXPECT_TRUE(scp.running());
}

// --bind 127.0.0.2: nothing listens on 127.0.0.1 at that port; a sender to 127.0.0.2 is served.
TEST(PacsService, BindAddress)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"--bind", "127.0.0.2"}, "127.0.0.2")) << scp.log();
    EXPECT_FALSE(canConnect(scp.port(), "127.0.0.1"));
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm");
    const Proc p = runLimited({"storescu", "127.0.0.2", std::to_string(scp.port()), ct});
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_TRUE(exists(archivePath(scp.root, ct))) << scp.log();
    // a bad address is a startup error
    const Proc bad = runLimited({kStoreScp, "-od", scp.root, "--bind", "not-an-address", "11112"}, 20);
    EXPECT_NE(bad.rc, 0) << bad.out;
    EXPECT_NE(bad.out.find("not an IPv4 address"), std::string::npos) << bad.out;
}

// --calling-aet: another calling AE title gets A-ASSOCIATE-RJ (calling AE title not recognised)
// and nothing is stored; the allowed one stores.
TEST(PacsService, CallingAETitleAllowList)
{
    REQUIRE_SETUP();
    ArchiveScp scp;
    ASSERT_TRUE(scp.listen({"--calling-aet", "MODALITY1", "--calling-aet", "CT2"})) << scp.log();
    const std::string port = std::to_string(scp.port());
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm");
    Proc p = runLimited({"storescu", "-aet", "INTRUDER", "127.0.0.1", port, ct});
    EXPECT_NE(p.rc, 0) << p.out;
    EXPECT_NE(p.out.find("Calling AE Title Not Recognized"), std::string::npos) << p.out;
    EXPECT_FALSE(archived(scp.root));
    p = runLimited({"storescu", "-aet", "CT2", "127.0.0.1", port, ct});
    EXPECT_EQ(p.rc, 0) << p.out;
    EXPECT_TRUE(exists(archivePath(scp.root, ct))) << scp.log();
}

// TLS: certificates made by openssl; stock storescu +tls sends a file that is compressed,
// verified and archived; a sender without TLS, or without a trusted certificate, stores nothing.
TEST(PacsService, TlsRoundTrip)
{
    REQUIRE_SETUP();
    if (!onPath("openssl"))
        GTEST_SKIP() << "openssl not on PATH: the TLS test is skipped";
    ArchiveScp scp;
    const TempDir &tmp = scp.tmp; // (the certificates too)
    const Proc probe = runLimited({kStoreScp, "-od", tmp.path(), "+tls", "none.key", "none.pem", "11112"}, 20);
    if (probe.out.find("built without TLS") != std::string::npos)
        GTEST_SKIP() << "pcwt-storescp built without TLS (CMake said why)";
    ASSERT_NE(probe.rc, 0) << probe.out; // (the key does not exist)
    for (const std::string who : {"server", "client", "stranger"}) {
        const Proc k = runLimited({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                   "-subj", "/CN=pcwt-test-" + who, "-keyout", tmp / (who + ".key"), "-out",
                                   tmp / (who + ".pem")});
        ASSERT_EQ(k.rc, 0) << k.out;
    }
    ASSERT_TRUE(scp.listen({"-v", "+tls", tmp / "server.key", tmp / "server.pem", "+cf", tmp / "client.pem"}))
        << scp.log();
    const std::string port = std::to_string(scp.port());
    const std::string ct = td("debian-python3-pydicom/CT_small.dcm");
    // plain TCP and an untrusted client certificate: refused
    Proc p = runLimited({"storescu", "-ta", "5", "127.0.0.1", port, ct}, 30);
    EXPECT_NE(p.rc, 0) << p.out;
    p = runLimited({"storescu", "+tls", tmp / "stranger.key", tmp / "stranger.pem", "+cf", tmp / "server.pem",
                    "127.0.0.1", port, ct},
                   30);
    EXPECT_NE(p.rc, 0) << p.out;
    EXPECT_FALSE(archived(scp.root));
    // the trusted client
    p = runLimited({"storescu", "+tls", tmp / "client.key", tmp / "client.pem", "+cf", tmp / "server.pem", "127.0.0.1",
                    port, ct});
    EXPECT_EQ(p.rc, 0) << p.out << scp.log();
    const std::string dest = archivePath(scp.root, ct);
    ASSERT_TRUE(exists(dest)) << scp.log();
    EXPECT_EQ(fileTransferSyntax(dest), kPcwtUid);
    expectSameImage(ct, dest);
    EXPECT_NE(scp.log().find("(TLS)"), std::string::npos);
}
