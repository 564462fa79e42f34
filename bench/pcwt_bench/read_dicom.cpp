// read_dicom.cpp - see read_dicom.hpp.
#include "read_dicom.hpp"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dccodec.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcmetinf.h>
#include <dcmtk/dcmdata/dcpixel.h>
#include <dcmtk/dcmdata/dcpixseq.h>
#include <dcmtk/dcmdata/dcpxitem.h>
#include <dcmtk/dcmdata/dcrledrg.h>
#include <dcmtk/dcmdata/dcxfer.h>
#include <dcmtk/dcmjpeg/djdecode.h>
#include <dcmtk/oflog/oflog.h>

#include <cstring>
#include <mutex>
#include <stdexcept>

#include "charls_io.hpp"
#include "codec.hpp"
#include "openjpeg_io.hpp"
#include "sample_words.hpp"

namespace pcwtbench {

namespace {

// A reason to give up on a file; becomes its status ("unreadable: ..." or "unsupported: ...").
struct InputError : std::runtime_error {
    InputError(const std::string &kind, const std::string &why) : std::runtime_error(kind + ": " + why) {}
};
InputError unreadable(const std::string &why) { return InputError("unreadable", why); }
InputError unsupported(const std::string &why) { return InputError("unsupported", why); }

struct PixelModule {
    Uint16 rows = 0, cols = 0, spp = 1, ba = 0, bs = 0, pr = 0, pc = 0;
    Sint32 frames = 1;
    std::string photometric, modality;
};

std::string get_string(DcmItem *ds, const DcmTagKey &tag)
{
    OFString v;
    if (ds->findAndGetOFString(tag, v).good())
        return std::string(v.c_str());
    return {};
}

PixelModule read_pixel_module(DcmDataset *ds)
{
    PixelModule m;
    if (ds->findAndGetUint16(DCM_Rows, m.rows).bad() || ds->findAndGetUint16(DCM_Columns, m.cols).bad())
        throw unreadable("no Rows/Columns");
    if (ds->findAndGetUint16(DCM_BitsAllocated, m.ba).bad())
        throw unreadable("no BitsAllocated");
    if (ds->findAndGetUint16(DCM_BitsStored, m.bs).bad())
        m.bs = m.ba;
    ds->findAndGetUint16(DCM_SamplesPerPixel, m.spp);
    ds->findAndGetUint16(DCM_PixelRepresentation, m.pr);
    ds->findAndGetUint16(DCM_PlanarConfiguration, m.pc);
    Sint32 frames = 1;
    if (ds->findAndGetSint32(DCM_NumberOfFrames, frames).good())
        m.frames = frames;
    m.photometric = get_string(ds, DCM_PhotometricInterpretation);
    m.modality = get_string(ds, DCM_Modality);
    if (m.rows == 0 || m.cols == 0)
        throw unreadable("Rows or Columns is 0");
    if (m.frames < 1 || m.frames > 1000000)
        throw unreadable("NumberOfFrames " + std::to_string(m.frames));
    if (m.ba != 8 && m.ba != 16)
        throw unsupported("BitsAllocated " + std::to_string(m.ba) + " (the benchmark handles 8 and 16)");
    if (m.spp != 1 && m.spp != 3)
        throw unsupported("SamplesPerPixel " + std::to_string(m.spp) + " (the benchmark handles 1 and 3)");
    if (m.bs == 0 || m.bs > m.ba)
        throw unreadable("BitsStored " + std::to_string(m.bs) + " with BitsAllocated " + std::to_string(m.ba));
    return m;
}

pcwt_image_desc desc_of(const PixelModule &m)
{
    pcwt_image_desc d{};
    d.width = m.cols;
    d.height = m.rows;
    d.components = m.spp;
    d.bits_allocated = m.ba;
    d.bits_stored = m.bs;
    d.is_signed = m.pr ? 1u : 0u;
    d.planar = m.spp == 3 && m.pc ? 1u : 0u;
    return d;
}

Image frame_image(const std::string &path, const std::string &name, const PixelModule &m, uint32_t f)
{
    Image img;
    img.path = path;
    img.frame = f;
    img.frame_count = static_cast<uint32_t>(m.frames);
    img.name = m.frames > 1 ? name + "#" + std::to_string(f + 1) : name;
    img.modality = m.modality.empty() ? "?" : m.modality;
    img.photometric = m.photometric;
    img.desc = desc_of(m);
    return img;
}

// Native pixel data (after DCMTK decoded it, if it was compressed): every frame.
void read_native(DcmDataset *ds, const PixelModule &m, const std::string &path, const std::string &name,
                 const std::string &source, std::vector<Image> &images)
{
    if (m.photometric.find("422") != std::string::npos || m.photometric.find("420") != std::string::npos)
        throw unsupported("native " + m.photometric + " (subsampled chroma)");
    DcmElement *el = nullptr;
    if (ds->findAndGetElement(DCM_PixelData, el).bad() || !el)
        throw unreadable("no PixelData");
    const size_t frame_bytes = static_cast<size_t>(m.rows) * m.cols * m.spp * (m.ba / 8u);
    const size_t need = frame_bytes * static_cast<size_t>(m.frames);
    const uint8_t *bytes = nullptr;
    if (m.ba == 16) {
        Uint16 *w = nullptr;
        if (el->getUint16Array(w).bad() || !w)
            throw unreadable("cannot read 16-bit PixelData");
        bytes = reinterpret_cast<const uint8_t *>(w);
    } else {
        Uint8 *b = nullptr;
        if (el->getUint8Array(b).bad() || !b)
            throw unreadable("cannot read 8-bit PixelData");
        bytes = b;
    }
    if (el->getLength() < need)
        throw unreadable("PixelData has " + std::to_string(el->getLength()) + " bytes, " +
                         std::to_string(m.frames) + " frame(s) need " + std::to_string(need));
    for (uint32_t f = 0; f < static_cast<uint32_t>(m.frames); ++f) {
        Image img = frame_image(path, name, m, f);
        img.source = source;
        img.samples.assign(bytes + f * frame_bytes, bytes + (f + 1) * frame_bytes);
        images.push_back(std::move(img));
    }
}

// The fragments (items 1..) of the pixel sequence that make up each frame.
std::vector<std::vector<uint8_t>> frame_streams(DcmPixelSequence *seq, Sint32 frames, bool jls)
{
    const unsigned long items = seq->card();
    if (items < 2)
        throw unreadable("the pixel sequence has no fragments");
    auto fragment = [&](unsigned long i, const Uint8 *&data, Uint32 &len) {
        DcmPixelItem *item = nullptr;
        Uint8 *p = nullptr;
        if (seq->getItem(item, i).bad() || !item)
            throw unreadable("cannot read fragment " + std::to_string(i));
        len = item->getLength();
        if (len > 0 && (item->getUint8Array(p).bad() || !p))
            throw unreadable("cannot read fragment " + std::to_string(i));
        data = p;
    };
    // Where each frame starts: from DCMTK (offset table, or one fragment per frame), else where a
    // fragment starts with the codestream's first marker.
    std::vector<unsigned long> starts;
    for (Sint32 f = 0; f < frames; ++f) {
        Uint32 start = 0;
        if (DcmCodec::determineStartFragment(static_cast<Uint32>(f), frames, seq, start).bad()) {
            starts.clear();
            break;
        }
        starts.push_back(start);
    }
    if (starts.empty()) {
        for (unsigned long i = 1; i < items; ++i) {
            const Uint8 *d;
            Uint32 len;
            fragment(i, d, len);
            const bool first = jls ? (len >= 2 && d[0] == 0xFF && d[1] == 0xD8) : looks_like_j2k(d, len);
            if (first)
                starts.push_back(i);
        }
        if (starts.size() != static_cast<size_t>(frames))
            throw unreadable("cannot tell which fragments make up each of the " + std::to_string(frames) +
                             " frames");
    }
    std::vector<std::vector<uint8_t>> streams;
    for (size_t f = 0; f < starts.size(); ++f) {
        const unsigned long end = f + 1 < starts.size() ? starts[f + 1] : items;
        if (starts[f] < 1 || starts[f] >= end)
            throw unreadable("bad fragment layout");
        std::vector<uint8_t> s;
        for (unsigned long i = starts[f]; i < end; ++i) {
            const Uint8 *d;
            Uint32 len;
            fragment(i, d, len);
            s.insert(s.end(), d, d + len);
        }
        streams.push_back(std::move(s));
    }
    return streams;
}

void read_jpegls(DcmPixelSequence *seq, const PixelModule &m, const std::string &path, const std::string &name,
                 const std::string &source, std::vector<Image> &images)
{
    const auto streams = frame_streams(seq, m.frames, true);
    for (uint32_t f = 0; f < streams.size(); ++f) {
        JlsFrame jf;
        try {
            jf = charls_decode_frame(streams[f].data(), streams[f].size());
        } catch (const CodecError &e) {
            throw unreadable(std::string("frame ") + std::to_string(f + 1) + ": " + e.what());
        }
        if (jf.width != m.cols || jf.height != m.rows || jf.components != m.spp || jf.bits > m.ba)
            throw unreadable("JPEG-LS frame " + std::to_string(jf.width) + "x" + std::to_string(jf.height) + "x" +
                             std::to_string(jf.components) + " " + std::to_string(jf.bits) +
                             "-bit does not match the pixel module");
        Image img = frame_image(path, name, m, f);
        img.source = source;
        img.desc.planar = m.spp == 3 && jf.planar ? 1u : 0u;
        const size_t n = sample_count(img.desc);
        const uint32_t in_bits = jf.bits <= 8 ? 8u : 16u;
        img.samples.resize(n * (m.ba / 8u));
        for (size_t i = 0; i < n; ++i)
            store_word(img.samples.data(), m.ba, i, load_word(jf.samples.data(), in_bits, i));
        images.push_back(std::move(img));
    }
}

void read_j2k(DcmPixelSequence *seq, const PixelModule &m, const std::string &path, const std::string &name,
              const std::string &source, std::vector<Image> &images)
{
    const auto streams = frame_streams(seq, m.frames, false);
    for (uint32_t f = 0; f < streams.size(); ++f) {
        J2kFrame jf;
        try {
            jf = openjpeg_decode_frame(streams[f].data(), streams[f].size());
        } catch (const CodecError &e) {
            throw unreadable(std::string("frame ") + std::to_string(f + 1) + ": " + e.what());
        }
        if (jf.width != m.cols || jf.height != m.rows || jf.planes.size() != m.spp)
            throw unreadable("JPEG 2000 frame does not match the pixel module");
        Image img = frame_image(path, name, m, f);
        img.source = source;
        img.desc.planar = 0;
        for (size_t c = 0; c < jf.planes.size(); ++c) {
            if (jf.precision[c] > m.ba)
                throw unreadable("JPEG 2000 precision " + std::to_string(jf.precision[c]) + " > BitsAllocated");
            if (jf.is_signed[c] != (m.pr != 0))
                img.note = std::string("JPEG 2000 stream is ") + (jf.is_signed[c] ? "signed" : "unsigned") +
                           ", PixelRepresentation " + std::to_string(m.pr) +
                           ": words are the decoded values in two's complement";
        }
        img.samples.resize(sample_count(img.desc) * (m.ba / 8u));
        for (uint32_t c = 0; c < m.spp; ++c)
            for (uint32_t y = 0; y < m.rows; ++y)
                for (uint32_t x = 0; x < m.cols; ++x)
                    store_word(img.samples.data(), m.ba, sample_index(img.desc, y, x, c),
                               static_cast<uint32_t>(jf.planes[c][static_cast<size_t>(y) * m.cols + x]) &
                                   word_mask(m.ba));
        images.push_back(std::move(img));
    }
}

bool is_jpegls(E_TransferSyntax x)
{
    return x == EXS_JPEGLSLossless || x == EXS_JPEGLSLossy;
}

bool is_j2k(E_TransferSyntax x)
{
    if (x == EXS_JPEG2000LosslessOnly || x == EXS_JPEG2000 || x == EXS_JPEG2000MulticomponentLosslessOnly ||
        x == EXS_JPEG2000Multicomponent)
        return true;
    return false;
}

// HTJ2K syntaxes are newer than DCMTK 3.6.7's table: recognise them by UID.
bool is_htj2k_uid(const std::string &uid)
{
    return uid == "1.2.840.10008.1.2.4.201" || uid == "1.2.840.10008.1.2.4.202" ||
           uid == "1.2.840.10008.1.2.4.203";
}

} // namespace

void register_dicom_decoders()
{
    static std::once_flag once;
    std::call_once(once, [] {
        OFLog::configure(OFLogger::FATAL_LOG_LEVEL);
        DJDecoderRegistration::registerCodecs();
        DcmRLEDecoderRegistration::registerCodecs();
    });
}

void read_dicom_file(const std::string &path, const std::string &name, LoadedInputs &out)
{
    std::vector<Image> images;
    try {
        DcmFileFormat ff;
        const OFCondition c = ff.loadFile(path.c_str());
        if (c.bad())
            throw unreadable(std::string("DCMTK: ") + c.text());
        DcmDataset *ds = ff.getDataset();
        if (!ds->tagExists(DCM_PixelData))
            throw unsupported("no PixelData (not an image)");
        PixelModule m = read_pixel_module(ds);
        const E_TransferSyntax xfer = ds->getOriginalXfer();
        const DcmXfer dx(xfer);
        const std::string ts_uid = get_string(ff.getMetaInfo(), DCM_TransferSyntaxUID);
        // (HTJ2K: DCMTK 3.6.7 does not know the UID and keys the pixel data as Explicit VR LE)
        const std::string ts_name = is_htj2k_uid(ts_uid)   ? "High-Throughput JPEG 2000 " + ts_uid
                                    : xfer == EXS_Unknown ? ts_uid
                                                          : std::string(dx.getXferName());
        DcmElement *el = nullptr;
        ds->findAndGetElement(DCM_PixelData, el);
        auto *pd = static_cast<DcmPixelData *>(el);
        if (is_jpegls(xfer) || is_j2k(xfer) || is_htj2k_uid(ts_uid)) {
            DcmPixelSequence *seq = nullptr;
            if (!pd || pd->getEncapsulatedRepresentation(xfer, nullptr, seq).bad() || !seq)
                throw unreadable("no encapsulated pixel data for " + ts_name);
            if (is_jpegls(xfer))
                read_jpegls(seq, m, path, name, "DICOM " + ts_name + " (CharLS)", images);
            else
                read_j2k(seq, m, path, name, "DICOM " + ts_name + " (OpenJPEG)", images);
        } else if (dx.isEncapsulated() || xfer == EXS_Unknown) {
            const OFCondition dc = ds->chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
            if (dc.bad() || !ds->canWriteXfer(EXS_LittleEndianExplicit))
                throw unsupported("cannot decode " + ts_name + (dc.bad() ? std::string(": ") + dc.text() : ""));
            m = read_pixel_module(ds); // the decoder may have changed e.g. PlanarConfiguration
            read_native(ds, m, path, name, "DICOM " + ts_name + " (DCMTK)", images);
        } else {
            read_native(ds, m, path, name, "DICOM " + ts_name, images);
        }
    } catch (const InputError &e) {
        out.problems.push_back({name, path, e.what()});
        return;
    } catch (const std::bad_alloc &) {
        out.problems.push_back({name, path, "unreadable: out of memory"});
        return;
    }
    for (Image &img : images)
        out.images.push_back(std::move(img));
}

} // namespace pcwtbench
