// Helpers of the PACS tests (test_pacs.cpp, test_pacs_service.cpp, test_pacs_verify.cpp): servers
// as real processes on loopback, free ports, the archive layout of pcwt-storescp, image comparison.
#ifndef PCWT_TESTS_PACS_UTIL_H
#define PCWT_TESTS_PACS_UTIL_H

#include "dicom_test_util.h"

#include <chrono>
#include <map>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

using namespace dt;


namespace {

const std::string kStoreScp = STORESCP_PATH;
const std::string kStoreScu = STORESCU_PATH;
const std::string kCompress = DCMCPCWT_PATH;
const std::string kTestdata = std::string(PCWT_SHARED_DIR) + "/testdata";
const std::string kPcwtUid = PCWT_DICOM_TS_UID;

inline bool haveCorpus()
{
    return exists(kTestdata + "/debian-python3-pydicom/CT_small.dcm") &&
           exists(kTestdata + "/pydicom-data/US1_UNCR.dcm") && exists(kTestdata + "/pylibjpeg-data/RG2_JLSL.dcm");
}

#define REQUIRE_SETUP()                                                                             \
    do {                                                                                            \
        if (!haveCorpus())                                                                          \
            GTEST_SKIP() << "no corpus under " << kTestdata << ": the PACS tests are skipped";      \
        if (!onPath("storescu") || !onPath("storescp"))                                             \
            GTEST_SKIP() << "stock DCMTK storescu/storescp not on PATH: the PACS tests are skipped"; \
    } while (0)

inline std::string td(const std::string &rel) { return kTestdata + "/" + rel; }

// a port nobody listens on now (bound to port 0 and released)
inline int freePort()
{
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 0;
    if (bind(s, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr *>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    close(s);
    return port;
}

inline bool canConnect(int port, const char *host = "127.0.0.1")
{
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, host, &a.sin_addr);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
    close(s);
    return ok;
}

// a server process in the background, its output in a log file; killed by stop() or the destructor
class Server {
public:
    ~Server() { stop(); }

    // start argv with "PORT" replaced by a free port; true once it accepts connections
    bool start(std::vector<std::string> argv, const std::string &log, const char *host = "127.0.0.1")
    {
        log_ = log;
        for (int attempt = 0; attempt < 3; ++attempt) {
            port_ = freePort();
            std::vector<std::string> a = argv;
            for (std::string &s : a)
                if (s == "PORT")
                    s = std::to_string(port_);
            pid_ = fork();
            if (pid_ == 0) {
                const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
                dup2(fd, 1);
                dup2(fd, 2);
                std::vector<char *> args;
                for (const std::string &s : a)
                    args.push_back(const_cast<char *>(s.c_str()));
                args.push_back(nullptr);
                execvp(args[0], args.data());
                _exit(127);
            }
            for (int i = 0; i < 200; ++i) { // up to 10 s
                if (canConnect(port_, host))
                    return true;
                if (!running())
                    break;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            stop();
        }
        return false;
    }

    bool running()
    {
        if (pid_ <= 0)
            return false;
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return false;
        }
        return true;
    }

    void stop()
    {
        if (pid_ <= 0)
            return;
        kill(pid_, SIGTERM);
        for (int i = 0; i < 100; ++i) { // up to 5 s
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    std::string log() const { return std::string(reinterpret_cast<const char *>(readBytes(log_).data()), readBytes(log_).size()); }

private:
    pid_t pid_ = -1;
    int port_ = 0;
    std::string log_;
};

// the folders of an archiving pcwt-storescp: a temporary folder, its archive root (made here)
struct ArchiveFolders {
    TempDir tmp;
    const std::string root = tmp / "archive";
    ArchiveFolders() { fs::create_directories(root); }
};

// pcwt-storescp archiving into a fresh root, its output in tmp/scp.log; the folders are removed
// after the server is stopped (base classes are destroyed in reverse order)
class ArchiveScp : public ArchiveFolders, public Server {
public:
    // "pcwt-storescp PORT -od <root>" then options, started by `launcher` (e.g. env) when given
    bool listen(const std::vector<std::string> &options, const char *host = "127.0.0.1",
                const std::vector<std::string> &launcher = {})
    {
        std::vector<std::string> argv = launcher;
        argv.insert(argv.end(), {kStoreScp, "PORT", "-od", root});
        argv.insert(argv.end(), options.begin(), options.end());
        return start(argv, tmp / "scp.log", host);
    }
};

// run with a time limit (coreutils timeout)
inline Proc runLimited(std::vector<std::string> argv, int seconds = 60)
{
    argv.insert(argv.begin(), {"timeout", "-k", "5", std::to_string(seconds)});
    return run(argv);
}

// the archive path component rule of pcwt-storescp
inline std::string sanitize(const std::string &v)
{
    std::string s;
    for (char c : v) {
        if (s.size() >= 64)
            break;
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
        s += ok ? c : '_';
    }
    while (!s.empty() && s[0] == '.')
        s[0] = '_';
    return s.empty() ? "UNKNOWN" : s;
}

inline std::string attr(DcmDataset *ds, const DcmTagKey &key)
{
    OFString v;
    ds->findAndGetOFString(key, v);
    return v.c_str();
}

inline std::string archivePath(const std::string &root, const std::string &original)
{
    DcmFileFormat ff;
    if (ff.loadFile(original.c_str()).bad())
        return "";
    DcmDataset *ds = ff.getDataset();
    return root + "/" + sanitize(attr(ds, DCM_PatientID)) + "/" + sanitize(attr(ds, DCM_StudyInstanceUID)) + "/" +
           sanitize(attr(ds, DCM_SeriesInstanceUID)) + "/" + sanitize(attr(ds, DCM_SOPInstanceUID)) + ".dcm";
}

inline std::vector<std::string> filesBelow(const std::string &dir)
{
    std::vector<std::string> r;
    std::error_code ec;
    if (!fs::exists(dir, ec))
        return r;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file())
            r.push_back(it->path().string());
    return r;
}

// the archived (or received) file decodes to the original's samples, with the same attributes;
// jpegls: compare the BitsStored-bit values (what JPEG-LS carries)
inline void expectSameImage(const std::string &original, const std::string &copy, bool jpegls = false)
{
    SCOPED_TRACE(original + " vs " + copy);
    DPCWTFileFormat fo, fc;
    ASSERT_TRUE(fo.loadFile(original.c_str()).good());
    ASSERT_TRUE(fc.loadFile(copy.c_str()).good());
    // (trailing padding is not content; JPEG-LS is pixel-interleaved: Planar Configuration 0)
    std::set<DcmTagKey> ignore = {DCM_PixelData, DCM_DataSetTrailingPadding};
    if (jpegls)
        ignore.insert(DCM_PlanarConfiguration);
    EXPECT_EQ(diffAttributes(fo.getDataset(), fc.getDataset(), ignore), "");
    Pixels po, pc;
    ASSERT_EQ(decodePixels(fo.getDataset(), po), "");
    ASSERT_EQ(decodePixels(fc.getDataset(), pc), "");
    if (jpegls)
        EXPECT_TRUE(valuesInterleaved(po) == valuesInterleaved(pc)) << "samples differ";
    else
        EXPECT_TRUE(po.bytes == pc.bytes) << "samples differ";
}

inline std::string fileTransferSyntax(const std::string &path)
{
    DcmFileFormat ff;
    if (ff.loadFile(path.c_str()).bad())
        return "";
    return metaTransferSyntax(ff);
}

} // namespace

#endif
