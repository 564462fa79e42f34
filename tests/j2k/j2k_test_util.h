// JPEG 2000 / HTJ2K input tests: source images, streams made with opj_compress and ojph_compress,
// and the DICOM files that carry them (written here with DCMTK: one or more fragments per frame,
// Basic, Extended or no offset table).
#ifndef PCWT_TESTS_J2K_UTIL_H
#define PCWT_TESTS_J2K_UTIL_H

#include "dicom_test_util.h"

#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcpixseq.h"
#include "dcmtk/dcmdata/dcpxitem.h"
#include "dcmtk/dcmdata/dcvrov.h"

#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dputil.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace j2k {

using namespace dt;

const std::string kShared = PCWT_SHARED_DIR;

// how a generated image looks and how it is coded
struct Spec {
    std::string name;
    uint32_t width = 64, height = 48, comps = 1, bits = 12;
    bool sgn = false;
    bool ht = false;                // ojph_compress (HTJ2K) instead of opj_compress
    bool htLossy = false;           // ojph_compress: irreversible (9/7) instead of reversible
    std::string instance;           // SOP Instance UID ("": a fixed one)
    std::vector<std::string> args;  // coder options (levels, code-blocks, order, tiles, precincts)
    uint32_t frames = 1;
    uint32_t fragmentsPerFrame = 1;
    enum Table { None, Basic, Extended } table = None;
};

// values of component c (planar, row by row): a pattern that uses the whole range, and its edges
inline std::vector<int32_t> sourceValues(const Spec &s, uint32_t frame)
{
    const int64_t range = int64_t(1) << s.bits;
    const int64_t low = s.sgn ? -(range / 2) : 0;
    std::vector<int32_t> v(size_t(s.width) * s.height * s.comps);
    uint64_t x = 0x9E3779B97F4A7C15ull ^ (uint64_t(frame) * 0x100000001B3ull) ^ s.bits;
    for (size_t i = 0; i < v.size(); ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const size_t p = i % (size_t(s.width) * s.height);
        // smooth ramps with noise, the extremes at the first pixels
        int64_t val = (int64_t(p % s.width) * 37 + int64_t(p / s.width) * 11 + int64_t(x % 64)) % range;
        if (p == 0)
            val = 0;
        if (p == 1)
            val = range - 1;
        v[i] = int32_t(val + low);
    }
    return v;
}

// the source values as native DICOM pixel data: interleaved, BitsAllocated 8 or 16 (host order
// words), the BitsStored-bit patterns sign-extended for signed images
inline std::vector<uint8_t> nativeFrame(const Spec &s, const std::vector<int32_t> &v)
{
    const uint32_t ba = s.bits > 8 ? 16 : 8;
    const size_t px = size_t(s.width) * s.height;
    std::vector<uint8_t> out(px * s.comps * (ba / 8));
    for (size_t p = 0; p < px; ++p)
        for (uint32_t c = 0; c < s.comps; ++c) {
            const int32_t val = v[c * px + p];
            if (ba == 16) {
                const uint16_t w = uint16_t(val);
                std::memcpy(&out[(p * s.comps + c) * 2], &w, 2);
            } else {
                out[p * s.comps + c] = uint8_t(val);
            }
        }
    return out;
}

// the codestream of one frame, made by the reference tools; "" and the tool's output on failure
inline std::string encode(const Spec &s, const std::vector<int32_t> &v, const std::string &dir,
                          std::vector<uint8_t> &cs)
{
    const size_t px = size_t(s.width) * s.height;
    const bool wide = s.bits > 8;
    std::vector<uint8_t> raw;
    std::vector<std::string> argv;
    const std::string out = dir + "/" + s.name + (s.ht ? ".j2c" : ".j2k");
    if (s.ht && s.comps == 3 && !s.sgn && (s.bits == 8 || s.bits == 16)) {
        // PPM: the colour transform needs all components of a line together
        const std::string hdr = "P6\n" + std::to_string(s.width) + " " + std::to_string(s.height) + "\n" +
                                std::to_string((1u << s.bits) - 1) + "\n";
        raw.assign(hdr.begin(), hdr.end());
        for (size_t p = 0; p < px; ++p)
            for (uint32_t c = 0; c < s.comps; ++c) {
                const uint32_t val = uint32_t(v[c * px + p]);
                if (wide)
                    raw.push_back(uint8_t(val >> 8));
                raw.push_back(uint8_t(val));
            }
        writeBytes(dir + "/" + s.name + ".ppm", raw);
        argv = {"ojph_compress", "-i", dir + "/" + s.name + ".ppm", "-o", out, "-reversible", s.htLossy ? "false" : "true"};
    } else {
        // planar little-endian samples: OpenJPEG's .rawl, OpenJPH's .yuv (.raw for one component).
        // Signed HTJ2K: ojph_compress 0.9 zero-extends raw samples (OpenJPH issue #102, fixed in
        // 0.10), so its signed streams hold negative samples as out-of-range positive values. It is
        // given the values offset by 2^(bits-1) as unsigned instead (its DC level shift takes the
        // offset off again) and the SIZ components are then marked signed: the codestream a
        // conforming encoder writes for the signed values (signed components have no level shift).
        const int32_t offset = (s.ht && s.sgn) ? int32_t(1) << (s.bits - 1) : 0;
        for (int32_t val : v) {
            raw.push_back(uint8_t(val + offset));
            if (wide)
                raw.push_back(uint8_t(uint32_t(val + offset) >> 8));
        }
        if (s.ht) {
            const std::string in = dir + "/" + s.name + (s.comps == 1 ? ".raw" : ".yuv");
            writeBytes(in, raw);
            std::string sg, bd, ds;
            for (uint32_t c = 0; c < s.comps; ++c) {
                sg += std::string(c ? "," : "") + "false";
                bd += std::string(c ? "," : "") + std::to_string(s.bits);
                ds += std::string(c ? "," : "") + "{1,1}";
            }
            argv = {"ojph_compress", "-i", in, "-o", out, "-dims",
                    "{" + std::to_string(s.width) + "," + std::to_string(s.height) + "}", "-num_comps",
                    std::to_string(s.comps), "-signed", sg, "-bit_depth", bd, "-downsamp", ds,
                    "-reversible", s.htLossy ? "false" : "true"};
        } else {
            const std::string in = dir + "/" + s.name + ".rawl";
            writeBytes(in, raw);
            argv = {"opj_compress", "-i", in, "-o", out, "-F",
                    std::to_string(s.width) + "," + std::to_string(s.height) + "," + std::to_string(s.comps) + "," +
                        std::to_string(s.bits) + "," + (s.sgn ? "s" : "u")};
        }
    }
    argv.insert(argv.end(), s.args.begin(), s.args.end());
    const Proc p = run(argv);
    if (p.rc != 0 || !exists(out))
        return describe(argv, p);
    cs = readBytes(out);
    if (s.ht && s.sgn) {
        // SOC, then SIZ: Ssiz of component c at 42 + 3c (bit 7: signed)
        if (cs.size() < 42 + 3 * s.comps || cs[0] != 0xFF || cs[1] != 0x4F || cs[2] != 0xFF || cs[3] != 0x51)
            return "no SIZ marker where expected in " + out;
        for (uint32_t c = 0; c < s.comps; ++c)
            cs[42 + 3 * c] |= 0x80;
    }
    return cs.empty() ? "empty codestream" : "";
}

// the transfer syntax UID a spec's file declares
inline std::string uidOf(E_TransferSyntax xfer)
{
    const char *carrier = DPCWTUIDOfCarrier(xfer);
    return carrier ? carrier : DcmXfer(xfer).getXferID();
}

// a DICOM file of the codestreams (one per frame) under xfer (.90, .91 or an HTJ2K carrier)
inline std::string writeDicom(const Spec &s, const std::vector<std::vector<uint8_t>> &frames, E_TransferSyntax xfer,
                              const std::string &path, const std::string &photometric = "")
{
    DPCWTFileFormat ff;
    DcmDataset *ds = ff.getDataset();
    ds->putAndInsertString(DCM_SOPClassUID, s.comps == 3 ? UID_SecondaryCaptureImageStorage : UID_CTImageStorage);
    ds->putAndInsertString(DCM_SOPInstanceUID,
                           s.instance.empty() ? "1.2.826.0.1.3680043.10.1078.1.1.1" : s.instance.c_str());
    ds->putAndInsertString(DCM_StudyInstanceUID, "1.2.826.0.1.3680043.10.1078.1.1");
    ds->putAndInsertString(DCM_SeriesInstanceUID, "1.2.826.0.1.3680043.10.1078.1.1.2");
    ds->putAndInsertString(DCM_PatientID, "J2K");
    ds->putAndInsertString(DCM_Modality, s.comps == 3 ? "OT" : "CT");
    ds->putAndInsertUint16(DCM_Rows, Uint16(s.height));
    ds->putAndInsertUint16(DCM_Columns, Uint16(s.width));
    ds->putAndInsertUint16(DCM_SamplesPerPixel, Uint16(s.comps));
    ds->putAndInsertString(DCM_PhotometricInterpretation,
                           !photometric.empty() ? photometric.c_str() : s.comps == 3 ? "RGB" : "MONOCHROME2");
    if (s.comps == 3)
        ds->putAndInsertUint16(DCM_PlanarConfiguration, 0);
    ds->putAndInsertUint16(DCM_BitsAllocated, s.bits > 8 ? 16 : 8);
    ds->putAndInsertUint16(DCM_BitsStored, Uint16(s.bits));
    ds->putAndInsertUint16(DCM_HighBit, Uint16(s.bits - 1));
    ds->putAndInsertUint16(DCM_PixelRepresentation, s.sgn ? 1 : 0);
    if (s.frames > 1)
        ds->putAndInsertString(DCM_NumberOfFrames, std::to_string(s.frames).c_str());

    DcmPixelSequence *seq = new DcmPixelSequence(DCM_PixelSequenceTag);
    DcmPixelItem *table = new DcmPixelItem(DCM_PixelItemTag);
    seq->insert(table);
    std::vector<Uint32> offsets;
    std::vector<Uint64> eot;
    Uint64 at = 0;
    for (const auto &cs : frames) {
        offsets.push_back(Uint32(at));
        eot.push_back(at);
        // split into fragmentsPerFrame pieces of even length (the last takes the rest)
        const size_t n = s.fragmentsPerFrame;
        size_t piece = ((cs.size() / n) + 1) & ~size_t(1);
        for (size_t i = 0, from = 0; i < n && from < cs.size(); ++i) {
            const size_t len = (i + 1 == n) ? cs.size() - from : std::min(piece, cs.size() - from);
            std::vector<Uint8> frag(cs.begin() + long(from), cs.begin() + long(from + len));
            if (frag.size() & 1)
                frag.push_back(0);
            DcmPixelItem *item = new DcmPixelItem(DCM_PixelItemTag);
            item->putUint8Array(frag.data(), Uint32(frag.size()));
            seq->insert(item);
            at += 8 + frag.size();
            from += len;
        }
    }
    if (s.table == Spec::Basic)
        table->putUint8Array(reinterpret_cast<const Uint8 *>(offsets.data()), Uint32(offsets.size() * 4));
    if (s.table == Spec::Extended) {
        DcmOther64bitVeryLong *e = new DcmOther64bitVeryLong(DCM_ExtendedOffsetTable);
        e->putUint64Array(eot.data(), Uint32(eot.size()));
        ds->insert(e, true);
    }
    DcmPixelData *pd = new DcmPixelData(DCM_PixelData);
    pd->putOriginalRepresentation(xfer, nullptr, seq);
    ds->insert(pd, true);
    const OFCondition c = ff.saveFile(path.c_str(), xfer);
    return c.good() ? "" : std::string("saveFile: ") + c.text();
}

// generate a spec's frames, code them and write the file; the expected native pixel data in want
inline std::string makeFile(const Spec &s, E_TransferSyntax xfer, const std::string &dir, const std::string &path,
                            std::vector<uint8_t> &want)
{
    std::vector<std::vector<uint8_t>> streams;
    want.clear();
    for (uint32_t f = 0; f < s.frames; ++f) {
        const std::vector<int32_t> v = sourceValues(s, f);
        std::vector<uint8_t> cs;
        const std::string err = encode(s, v, dir, cs);
        if (!err.empty())
            return err;
        streams.push_back(cs);
        const std::vector<uint8_t> n = nativeFrame(s, v);
        want.insert(want.end(), n.begin(), n.end());
    }
    return writeDicom(s, streams, xfer, path);
}

// a 96x64 signed 16-bit image of two frames with a Basic Offset Table
inline Spec plainSpec(const std::string &name, bool ht = false)
{
    Spec s;
    s.name = name;
    s.width = 96;
    s.height = 64;
    s.bits = 16;
    s.sgn = true;
    s.ht = ht;
    s.frames = 2;
    s.table = Spec::Basic;
    return s;
}

// the JPEG 2000 and HTJ2K files of ../shared/testdata and testdata-jpeg2000 (a test name each)
struct CorpusFile {
    std::string path, name, ts;
};

// The pixel sequence of the encapsulated representation ff was read in (nullptr where it has none).
inline DcmPixelSequence *originalPixelSequence(DcmFileFormat &ff)
{
    DcmElement *e = nullptr;
    if (ff.getDataset()->findAndGetElement(DCM_PixelData, e).bad())
        return nullptr;
    DcmPixelData *pd = static_cast<DcmPixelData *>(e);
    E_TransferSyntax key = EXS_Unknown;
    const DcmRepresentationParameter *rp = nullptr;
    DcmPixelSequence *seq = nullptr;
    pd->getOriginalRepresentationKey(key, rp);
    if (pd->getEncapsulatedRepresentation(key, rp, seq).bad())
        return nullptr;
    return seq;
}

inline std::string fileTs(const std::string &path)
{
    DcmFileFormat ff;
    if (ff.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, 256).bad())
        return "";
    return metaTransferSyntax(ff);
}

inline bool isJ2kUid(const std::string &ts)
{
    return ts == UID_JPEG2000LosslessOnlyTransferSyntax || ts == UID_JPEG2000TransferSyntax ||
           DPCWTCarrierOfUID(ts.c_str()) == DPCWT_HTJ2K_LOSSLESS_XFER ||
           DPCWTCarrierOfUID(ts.c_str()) == DPCWT_HTJ2K_LOSSLESS_RPCL_XFER ||
           DPCWTCarrierOfUID(ts.c_str()) == DPCWT_HTJ2K_XFER;
}

inline std::vector<CorpusFile> j2kCorpus()
{
    std::vector<CorpusFile> files;
    for (const std::string sub : {"testdata", "testdata-jpeg2000"})
        for (dt::DcmFile &f : dt::dcmFilesUnder(kShared + "/" + sub, sub + "_")) {
            std::string ts = fileTs(f.path);
            if (isJ2kUid(ts))
                files.push_back({std::move(f.path), std::move(f.name), std::move(ts)});
        }
    std::sort(files.begin(), files.end(), [](const CorpusFile &a, const CorpusFile &b) { return a.name < b.name; });
    return files;
}

// how gtest prints a corpus file (and so how ctest lists its tests)
inline void PrintTo(const CorpusFile &f, std::ostream *os) { *os << f.name; }

// a copy decodes to the original's samples, and both have the same attributes once decoded (the
// decoder's changes, such as a lossy mark or Bits Stored from the codestream, on both sides)
inline void expectSameDecoded(const std::string &original, const std::string &copy)
{
    SCOPED_TRACE(original + " vs " + copy);
    DPCWTFileFormat fo, fc;
    ASSERT_TRUE(fo.loadFile(original.c_str()).good());
    ASSERT_TRUE(fc.loadFile(copy.c_str()).good());
    Pixels po, pc;
    ASSERT_EQ(decodePixels(fo.getDataset(), po), "");
    ASSERT_EQ(decodePixels(fc.getDataset(), pc), "");
    EXPECT_TRUE(po.bytes == pc.bytes) << "samples differ";
    EXPECT_EQ(diffAttributes(fo.getDataset(), fc.getDataset(), {DCM_PixelData, DCM_DataSetTrailingPadding}), "");
}

inline bool haveTools() { return onPath("opj_compress") && onPath("ojph_compress"); }

#define REQUIRE_J2K_TOOLS()                                                                             \
    do {                                                                                                \
        if (!j2k::haveTools())                                                                          \
            GTEST_SKIP() << "opj_compress (libopenjp2-tools) or ojph_compress (openjph-tools) missing"; \
    } while (0)

} // namespace j2k

#endif
