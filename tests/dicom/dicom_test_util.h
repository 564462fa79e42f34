// Helpers of the DCMTK-based tests: running the tools, temporary folders, building small images,
// decoding files and comparing attributes. Header-only; each test binary includes it once.
#ifndef PCWT_DICOM_TEST_UTIL_H
#define PCWT_DICOM_TEST_UTIL_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcpixseq.h"
#include "dcmtk/dcmdata/dcpxitem.h"
#include "dcmtk/dcmdata/dcrledrg.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/dcmjpeg/djdecode.h"
#include "dcmtk/dcmjpls/djdecode.h"

#include "dcmpcwt/dpdecode.h"
#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dpfilefo.h"
#include "pcwt_dicom.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dt {

namespace fs = std::filesystem;

// ------------------------------------------------------------------------------------------------
// processes

struct Proc {
    int rc = -1;       // exit status, or 128 + signal
    std::string out;   // stdout and stderr together
};

// Run argv (PATH lookup) with extra environment entries "NAME=value"; captures the output.
inline Proc run(const std::vector<std::string> &argv, const std::vector<std::string> &env = {})
{
    Proc p;
    int fds[2];
    if (pipe(fds) != 0)
        return p;
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        for (const std::string &e : env)
            putenv(strdup(e.c_str()));
        std::vector<char *> args;
        for (const std::string &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        p.out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    p.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return p;
}

// The environment of a stock DCMTK tool run with libdcmpcwt_preload.so (under AddressSanitizer the
// runtime comes first, and leaks of the stock tool itself are not ours to report).
inline std::vector<std::string> preloadEnv()
{
    std::vector<std::string> env = {std::string("LD_PRELOAD=") + PRELOAD_PREFIX + PRELOAD_PATH};
    if (*PRELOAD_PREFIX)
        env.push_back("ASAN_OPTIONS=detect_leaks=0");
    return env;
}

inline std::string describe(const std::vector<std::string> &argv, const Proc &p)
{
    std::ostringstream s;
    for (const std::string &a : argv)
        s << a << ' ';
    s << "-> rc " << p.rc << "\n" << p.out;
    return s.str();
}

inline bool onPath(const std::string &tool)
{
    const char *path = std::getenv("PATH");
    if (!path)
        return false;
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
        if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0)
            return true;
    return false;
}

// ------------------------------------------------------------------------------------------------
// files

class TempDir {
public:
    TempDir()
    {
        const char *base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pcwt-dicom-test.XXXXXX";
        std::vector<char> b(tmpl.begin(), tmpl.end());
        b.push_back('\0');
        if (mkdtemp(b.data()))
            path_ = b.data();
    }
    ~TempDir()
    {
        std::error_code ec;
        if (!path_.empty() && !std::getenv("PCWT_KEEP_TEST_FILES"))
            fs::remove_all(path_, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    std::string operator/(const std::string &name) const { return path_ + "/" + name; }
    const std::string &path() const { return path_; }
    // files other than the given ones (left-over temporary files)
    std::vector<std::string> others(const std::set<std::string> &expected) const
    {
        std::vector<std::string> r;
        for (const auto &e : fs::directory_iterator(path_))
            if (!expected.count(e.path().filename().string()))
                r.push_back(e.path().filename().string());
        return r;
    }

private:
    std::string path_;
};

inline bool exists(const std::string &p)
{
    return access(p.c_str(), F_OK) == 0;
}

// A .dcm file below a folder: its path and a test name (a prefix and the path relative to the
// folder, less ".dcm", its non-alphanumerics as '_').
struct DcmFile {
    std::string path, name;
};

// The .dcm files below root, recursively (nothing when root is absent; an unreadable part ends
// the walk), in the order the walk meets them.
inline std::vector<DcmFile> dcmFilesUnder(const std::string &root, const std::string &prefix)
{
    std::vector<DcmFile> files;
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        return files;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (ec)
            break;
        if (!it->is_regular_file() || it->path().extension() != ".dcm")
            continue;
        const std::string rel = fs::relative(it->path(), root).string();
        std::string name = prefix + rel.substr(0, rel.size() - 4);
        for (char &c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)))
                c = '_';
        files.push_back({it->path().string(), name});
    }
    return files;
}

inline std::vector<uint8_t> readBytes(const std::string &p)
{
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline void writeBytes(const std::string &p, const std::vector<uint8_t> &b)
{
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char *>(b.data()), static_cast<std::streamsize>(b.size()));
}

// ------------------------------------------------------------------------------------------------
// codecs: DCMTK's decoders and PCWT's, registered once per test binary

class CodecEnvironment : public ::testing::Environment {
public:
    void SetUp() override
    {
        DJDecoderRegistration::registerCodecs();
        DJLSDecoderRegistration::registerCodecs();
        DcmRLEDecoderRegistration::registerCodecs();
        DPCWTDecoderRegistration::registerCodecs();
        DPCWTEncoderRegistration::registerCodecs();
    }
    void TearDown() override
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTDecoderRegistration::cleanup();
        DcmRLEDecoderRegistration::cleanup();
        DJLSDecoderRegistration::cleanup();
        DJDecoderRegistration::cleanup();
    }
};

// ------------------------------------------------------------------------------------------------
// images

struct ImageSpec {
    uint16_t rows = 16, columns = 16, spp = 1, ba = 16, bs = 16, hb = 15, pr = 0, planar = 0;
    std::string photometric = "MONOCHROME2";
    int frames = 1;          // NumberOfFrames written when > 1 or when writeFrames is set
    bool writeFrames = false;
    unsigned seed = 1;
    enum Fill { Random, Smooth, DirtyHighBits, SignExtended } fill = Smooth;
};

inline size_t frameBytes(const ImageSpec &s)
{
    return size_t(s.rows) * s.columns * s.spp * (s.ba / 8);
}

// Samples as a byte sequence (16-bit words in host order), frames one after the other.
inline std::vector<uint8_t> makeSamples(const ImageSpec &s)
{
    std::mt19937 gen(s.seed);
    auto rng = [&gen]() { return static_cast<uint32_t>(gen()); };
    const size_t n = size_t(s.rows) * s.columns * s.spp * size_t(s.frames);
    std::vector<uint8_t> out(n * (s.ba / 8));
    const uint32_t vmask = s.bs >= 32 ? 0xFFFFFFFFu : (1u << s.bs) - 1u;
    for (size_t i = 0; i < n; ++i) {
        const size_t px = i / s.spp;
        const size_t x = px % s.columns, y = (px / s.columns) % s.rows;
        uint32_t v = 0;
        switch (s.fill) {
        case ImageSpec::Random:
            v = rng();
            break;
        case ImageSpec::Smooth:
        case ImageSpec::DirtyHighBits:
        case ImageSpec::SignExtended:
            v = static_cast<uint32_t>(x * 7 + y * 3 + (i % s.spp) * 50 + (rng() & 7u));
            break;
        }
        uint32_t w = v & vmask;
        if (s.fill == ImageSpec::DirtyHighBits && (rng() % 5u) == 0)
            w |= (rng() << s.bs);
        if (s.fill == ImageSpec::SignExtended && s.pr && s.bs < s.ba && ((w >> (s.bs - 1)) & 1u))
            w |= ~vmask;
        if (s.fill == ImageSpec::Random)
            w = v; // every bit random
        if (s.ba == 8)
            out[i] = static_cast<uint8_t>(w);
        else {
            const uint16_t w16 = static_cast<uint16_t>(w);
            std::memcpy(&out[2 * i], &w16, 2);
        }
    }
    return out;
}

// A Secondary Capture data set with the given pixels (native, as DCMTK keeps them in memory).
inline DcmFileFormat *makeFile(const ImageSpec &s, const std::vector<uint8_t> &samples)
{
    DcmFileFormat *ff = new DcmFileFormat();
    DcmDataset *ds = ff->getDataset();
    char uid[100];
    ds->putAndInsertString(DCM_SOPClassUID, UID_SecondaryCaptureImageStorage);
    ds->putAndInsertString(DCM_SOPInstanceUID, dcmGenerateUniqueIdentifier(uid, SITE_INSTANCE_UID_ROOT));
    ds->putAndInsertString(DCM_StudyInstanceUID, dcmGenerateUniqueIdentifier(uid, SITE_STUDY_UID_ROOT));
    ds->putAndInsertString(DCM_SeriesInstanceUID, dcmGenerateUniqueIdentifier(uid, SITE_SERIES_UID_ROOT));
    ds->putAndInsertString(DCM_PatientName, "Test^PCWT");
    ds->putAndInsertString(DCM_PatientID, "PCWT-1");
    ds->putAndInsertString(DCM_Modality, "OT");
    ds->putAndInsertString(DCM_ImageComments, "synthetic test image");
    ds->putAndInsertUint16(DCM_Rows, s.rows);
    ds->putAndInsertUint16(DCM_Columns, s.columns);
    ds->putAndInsertUint16(DCM_SamplesPerPixel, s.spp);
    ds->putAndInsertUint16(DCM_BitsAllocated, s.ba);
    ds->putAndInsertUint16(DCM_BitsStored, s.bs);
    ds->putAndInsertUint16(DCM_HighBit, s.hb);
    ds->putAndInsertUint16(DCM_PixelRepresentation, s.pr);
    ds->putAndInsertString(DCM_PhotometricInterpretation, s.photometric.c_str());
    if (s.spp > 1)
        ds->putAndInsertUint16(DCM_PlanarConfiguration, s.planar);
    if (s.frames > 1 || s.writeFrames)
        ds->putAndInsertString(DCM_NumberOfFrames, std::to_string(s.frames).c_str());
    if (s.photometric == "PALETTE COLOR") {
        const Uint16 desc[3] = {256, 0, 16};
        ds->putAndInsertUint16Array(DCM_RedPaletteColorLookupTableDescriptor, desc, 3);
        ds->putAndInsertUint16Array(DCM_GreenPaletteColorLookupTableDescriptor, desc, 3);
        ds->putAndInsertUint16Array(DCM_BluePaletteColorLookupTableDescriptor, desc, 3);
        std::vector<Uint16> lut(256);
        for (size_t i = 0; i < 256; ++i)
            lut[i] = static_cast<Uint16>(i * 257);
        ds->putAndInsertUint16Array(DCM_RedPaletteColorLookupTableData, lut.data(), 256);
        ds->putAndInsertUint16Array(DCM_GreenPaletteColorLookupTableData, lut.data(), 256);
        ds->putAndInsertUint16Array(DCM_BluePaletteColorLookupTableData, lut.data(), 256);
    }
    if (s.ba == 8) {
        ds->putAndInsertUint8Array(DCM_PixelData, samples.data(), static_cast<unsigned long>(samples.size()));
    } else {
        std::vector<Uint16> w(samples.size() / 2);
        std::memcpy(w.data(), samples.data(), samples.size());
        ds->putAndInsertUint16Array(DCM_PixelData, w.data(), static_cast<unsigned long>(w.size()));
    }
    return ff;
}

// ------------------------------------------------------------------------------------------------
// decoded pixels

struct Pixels {
    pcwt_dicom_pixel_module module{};
    std::vector<uint8_t> bytes; // frames one after the other, host-order words for 16 bits
};

// Read the image pixel module of the main data set (unvalidated).
inline void readModule(DcmItem *ds, pcwt_dicom_pixel_module &m)
{
    std::memset(&m, 0, sizeof m);
    Uint16 v = 0;
    if (ds->findAndGetUint16(DCM_Rows, v).good()) m.rows = v;
    if (ds->findAndGetUint16(DCM_Columns, v).good()) m.columns = v;
    if (ds->findAndGetUint16(DCM_SamplesPerPixel, v).good()) m.samples_per_pixel = v;
    if (ds->findAndGetUint16(DCM_BitsAllocated, v).good()) m.bits_allocated = v;
    if (ds->findAndGetUint16(DCM_BitsStored, v).good()) m.bits_stored = v;
    if (ds->findAndGetUint16(DCM_HighBit, v).good()) m.high_bit = v;
    if (ds->findAndGetUint16(DCM_PixelRepresentation, v).good()) m.pixel_representation = v;
    if (ds->findAndGetUint16(DCM_PlanarConfiguration, v).good()) {
        m.has_planar_configuration = 1;
        m.planar_configuration = v;
    }
    OFString pi;
    ds->findAndGetOFString(DCM_PhotometricInterpretation, pi);
    m.photometric = pcwt_dicom_photometric_from_string(pi.c_str());
    Sint32 f = 1;
    m.number_of_frames = (ds->findAndGetSint32(DCM_NumberOfFrames, f).good() && f > 0) ? Uint64(f) : 1;
}

// The uncompressed Pixel Data of ds after chooseRepresentation(LEE) (DCMTK decoders).
inline std::string decodePixels(DcmDataset *ds, Pixels &px)
{
    OFCondition c = ds->chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
    if (c.bad())
        return std::string("chooseRepresentation: ") + c.text();
    readModule(ds, px.module);
    DcmElement *e = nullptr;
    if (ds->findAndGetElement(DCM_PixelData, e).bad() || !e)
        return "no Pixel Data";
    Uint8 *data = nullptr;
    if (e->getUint8Array(data).bad() || !data)
        return "cannot read Pixel Data";
    const uint64_t want = uint64_t(px.module.rows) * px.module.columns * px.module.samples_per_pixel *
                          (px.module.bits_allocated / 8) * px.module.number_of_frames;
    if (e->getLength() < want)
        return "Pixel Data shorter than declared";
    px.bytes.assign(data, data + want);
    return "";
}

// Load a file (PCWT files through DPCWTFileFormat) and decode it.
inline std::string loadPixels(const std::string &path, Pixels &px, DcmFileFormat *keep = nullptr)
{
    DPCWTFileFormat ff;
    DcmFileFormat &f = keep ? *keep : ff;
    OFCondition c = keep ? keep->loadFile(path.c_str()) : ff.loadFile(path.c_str());
    if (keep && c.good())
        c = DPCWTFileFormat::rekeyPixelData(*keep);
    if (c.bad())
        return std::string("loadFile: ") + c.text();
    return decodePixels(f.getDataset(), px);
}

// The BitsStored-bit values in pixel-interleaved order: what JPEG-LS carries.
inline std::vector<uint8_t> valuesInterleaved(const Pixels &px)
{
    pcwt_image_desc d;
    if (pcwt_dicom_image_desc(&px.module, &d) != PCWT_DICOM_OK)
        return {};
    const size_t fb = pcwt_image_size(&d);
    std::vector<uint8_t> out(px.bytes.size()), tmp(fb);
    for (size_t f = 0; f * fb < px.bytes.size(); ++f) {
        const uint8_t *src = px.bytes.data() + f * fb;
        if (d.components == 3 && d.planar) {
            pcwt_dicom_planar_to_interleaved(src, tmp.data(), size_t(d.width) * d.height, d.bits_allocated / 8);
            src = tmp.data();
        }
        pcwt_image_desc di = d;
        di.planar = 0;
        pcwt_dicom_mask_to_bits_stored(&di, src, out.data() + f * fb);
    }
    return out;
}

// ------------------------------------------------------------------------------------------------
// attributes

// Differences between two data sets' top-level attributes, the ones in `ignore` left out.
inline std::string diffAttributes(DcmItem *a, DcmItem *b, const std::set<DcmTagKey> &ignore)
{
    std::ostringstream s;
    std::set<DcmTagKey> seen;
    for (unsigned long i = 0; i < a->card(); ++i) {
        DcmElement *ea = a->getElement(i);
        const DcmTagKey key = ea->getTag();
        seen.insert(key);
        if (ignore.count(key) || key.getElement() == 0x0000) // group lengths follow the encoding
            continue;
        DcmElement *eb = nullptr;
        if (b->findAndGetElement(key, eb).bad() || !eb) {
            s << key << " missing; ";
            continue;
        }
        if (ea->compare(*eb) != 0)
            s << key << " differs; ";
    }
    for (unsigned long i = 0; i < b->card(); ++i) {
        const DcmTagKey key = b->getElement(i)->getTag();
        if (!seen.count(key) && !ignore.count(key) && key.getElement() != 0x0000)
            s << key << " added; ";
    }
    return s.str();
}

inline std::string metaTransferSyntax(DcmFileFormat &ff)
{
    OFString ts;
    ff.getMetaInfo()->findAndGetOFString(DCM_TransferSyntaxUID, ts);
    return ts.c_str();
}

inline DcmPixelSequence *pixelSequence(DcmDataset *ds, E_TransferSyntax key,
                                       const DcmRepresentationParameter *param = nullptr)
{
    DcmElement *e = nullptr;
    if (ds->findAndGetElement(DCM_PixelData, e).bad() || !e)
        return nullptr;
    DcmPixelSequence *seq = nullptr;
    if (static_cast<DcmPixelData *>(e)->getEncapsulatedRepresentation(key, param, seq).bad())
        return nullptr;
    return seq;
}

// The headers of the PCWT codestreams of a file of the private syntax, one per frame (fragment),
// read with libpcwt's pcwt_read_header; bytes receives the sum of the codestream lengths. Returns
// an error message ("" on success).
inline std::string codestreamHeaders(const std::string &path, std::vector<pcwt_header_info> &headers,
                                     uint64_t *bytes = nullptr)
{
    headers.clear();
    if (bytes)
        *bytes = 0;
    DPCWTFileFormat ff;
    const OFCondition c = ff.loadFile(path.c_str());
    if (c.bad())
        return std::string("loadFile: ") + c.text();
    if (metaTransferSyntax(ff) != PCWT_DICOM_TS_UID)
        return "not the PCWT transfer syntax: " + metaTransferSyntax(ff);
    DcmPixelSequence *seq = pixelSequence(ff.getDataset(), ff.getDataset()->getOriginalXfer());
    if (!seq)
        return "no encapsulated Pixel Data";
    // item 0 is the Basic Offset Table; one fragment per frame follows
    for (unsigned long i = 1; i < seq->card(); ++i) {
        DcmPixelItem *item = nullptr;
        Uint8 *cs = nullptr;
        if (seq->getItem(item, i).bad() || !item || item->getUint8Array(cs).bad() || !cs)
            return "cannot read fragment " + std::to_string(i);
        pcwt_header_info info;
        const pcwt_status st = pcwt_read_header(cs, item->getLength(), &info);
        if (st != PCWT_OK)
            return "fragment " + std::to_string(i) + ": " + pcwt_status_string(st);
        headers.push_back(info);
        if (bytes)
            *bytes += info.codestream_length;
    }
    if (headers.empty())
        return "no fragments";
    return "";
}

// "" when every frame of the PCWT file at path is a codestream of the given profile with that
// profile's lifting order (columns first in the entropy profile, rows first in the baseline) and,
// with default_groups, its default group size (64x16, 32x32), and there is one per frame; else
// what is not.
inline std::string expectProfile(const std::string &path, pcwt_profile profile, uint64_t frames,
                                 uint64_t *bytes = nullptr, bool default_groups = true)
{
    std::vector<pcwt_header_info> headers;
    const std::string err = codestreamHeaders(path, headers, bytes);
    if (!err.empty())
        return err;
    if (headers.size() != frames)
        return std::to_string(headers.size()) + " codestreams for " + std::to_string(frames) + " frames";
    const bool entropy = profile != PCWT_PROFILE_BASELINE; // entropy or compact: their layout
    for (size_t i = 0; i < headers.size(); ++i) {
        const pcwt_header_info &h = headers[i];
        const std::string frame = "frame " + std::to_string(i + 1);
        if (h.profile != profile)
            return frame + " has profile " + std::to_string(int(h.profile)) + ", expected " +
                   std::to_string(int(profile));
        if (h.columns_first != (entropy ? 1u : 0u))
            return frame + (h.columns_first ? " lifts columns first" : " lifts rows first");
        if (default_groups && (h.group_rows != (entropy ? PCWT_ENTROPY_GROUP_ROWS : PCWT_DEFAULT_GROUP) ||
                               h.group_cols != (entropy ? PCWT_ENTROPY_GROUP_COLS : PCWT_DEFAULT_GROUP)))
            return frame + " has groups of " + std::to_string(h.group_rows) + "x" + std::to_string(h.group_cols);
    }
    return "";
}

} // namespace dt

#endif
