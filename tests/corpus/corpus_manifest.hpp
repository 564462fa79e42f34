// corpus_manifest.hpp - reads the frame manifest written by tests/corpus/export_corpus.py and the
// raw frames it lists. Shared by the corpus round-trip test and the pcwt_corpus_sizes tool.
//
// manifest.tsv: a first line "#pcwt-corpus v1 status=ok|skipped ...", a '#' column header, then one
// line per frame, tab-separated: raw (relative to the manifest's folder), source, width, height,
// components, bits_allocated, bits_stored, signed, planar, frame, frames, photometric,
// transfer_syntax, note. Raw files hold the stored words little-endian, row by row.
#ifndef PCWT_CORPUS_MANIFEST_HPP
#define PCWT_CORPUS_MANIFEST_HPP

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "pcwt.h"

namespace pcwt_corpus {

struct Frame {
    std::string raw_path; // absolute (or as reachable from the working directory)
    std::string raw_rel;  // as written in the manifest
    std::string source;   // e.g. testdata/wg04/dicom_unc/CT1_UNC.dcm
    pcwt_image_desc desc{};
    uint32_t frame = 0;  // index of the frame in its file
    uint32_t frames = 1; // frames in the file
    std::string photometric;
    std::string note;
    size_t line = 0; // line number in the manifest

    std::string name() const
    {
        std::ostringstream s;
        s << source;
        if (frames > 1)
            s << " frame " << frame << "/" << frames;
        return s.str();
    }
};

struct Manifest {
    bool found = false;   // the file exists and could be read
    bool skipped = false; // the exporter could not run here (status=skipped)
    std::string status_line;
    std::string error; // first malformed line, if any
    std::vector<Frame> frames;
};

inline std::vector<std::string> split_tabs(const std::string &line)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        const size_t tab = line.find('\t', start);
        if (tab == std::string::npos) {
            out.push_back(line.substr(start));
            return out;
        }
        out.push_back(line.substr(start, tab - start));
        start = tab + 1;
    }
}

inline bool parse_u32(const std::string &text, uint32_t *value)
{
    if (text.empty() || text.size() > 10)
        return false;
    for (const char c : text)
        if (c < '0' || c > '9')
            return false;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (v > 0xFFFFFFFFull)
        return false;
    *value = static_cast<uint32_t>(v);
    return true;
}

inline std::string dir_of(const std::string &path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

inline Manifest load_manifest(const std::string &path)
{
    Manifest m;
    std::ifstream in(path);
    if (!in)
        return m;
    m.found = true;
    const std::string base = dir_of(path);
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty())
            continue;
        if (line[0] == '#') {
            if (line.rfind("#pcwt-corpus", 0) == 0) {
                m.status_line = line;
                m.skipped = line.find("status=skipped") != std::string::npos;
            }
            continue;
        }
        const std::vector<std::string> f = split_tabs(line);
        Frame fr;
        fr.line = number;
        bool ok = f.size() >= 9;
        if (ok) {
            fr.raw_rel = f[0];
            fr.raw_path = (!f[0].empty() && f[0][0] == '/') ? f[0] : base + "/" + f[0];
            fr.source = f[1];
            ok = parse_u32(f[2], &fr.desc.width) && parse_u32(f[3], &fr.desc.height) &&
                 parse_u32(f[4], &fr.desc.components) && parse_u32(f[5], &fr.desc.bits_allocated) &&
                 parse_u32(f[6], &fr.desc.bits_stored) && parse_u32(f[7], &fr.desc.is_signed) &&
                 parse_u32(f[8], &fr.desc.planar);
        }
        if (ok && f.size() >= 11)
            ok = parse_u32(f[9], &fr.frame) && parse_u32(f[10], &fr.frames);
        if (f.size() >= 12)
            fr.photometric = f[11];
        if (f.size() >= 14)
            fr.note = f[13];
        if (!ok) {
            if (m.error.empty())
                m.error = path + ":" + std::to_string(number) + ": malformed line: " + line;
            continue;
        }
        m.frames.push_back(fr);
    }
    return m;
}

// Reads a raw frame (little-endian words) into host-order samples. Returns "" or an error message.
inline std::string load_raw(const Frame &fr, std::vector<unsigned char> *samples)
{
    const size_t expected = pcwt_image_size(&fr.desc);
    if (expected == 0)
        return "pcwt_image_size() is 0 for the manifest's descriptor";
    std::ifstream in(fr.raw_path, std::ios::binary);
    if (!in)
        return "cannot open " + fr.raw_path;
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    if (bytes.size() != expected)
        return fr.raw_path + " has " + std::to_string(bytes.size()) + " bytes, the descriptor needs " +
               std::to_string(expected);
    if (fr.desc.bits_allocated == 16) {
        samples->resize(bytes.size());
        for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
            const uint16_t w = static_cast<uint16_t>(bytes[i] | (bytes[i + 1] << 8));
            std::memcpy(samples->data() + i, &w, sizeof w);
        }
    } else {
        *samples = std::move(bytes);
    }
    return "";
}

// Stored word i of a host-order frame.
inline uint32_t word_at(const pcwt_image_desc &d, const unsigned char *p, size_t i)
{
    if (d.bits_allocated == 16) {
        uint16_t w;
        std::memcpy(&w, p + 2 * i, sizeof w);
        return w;
    }
    return p[i];
}

// (row, column, component) of sample index i in the frame's layout, as text.
inline std::string sample_position(const pcwt_image_desc &d, size_t i)
{
    const size_t plane = static_cast<size_t>(d.width) * d.height;
    size_t comp = 0, pix = i;
    if (d.components == 3) {
        if (d.planar) {
            comp = i / plane;
            pix = i % plane;
        } else {
            comp = i % 3;
            pix = i / 3;
        }
    }
    std::ostringstream s;
    s << "sample " << i << " (row " << pix / d.width << ", column " << pix % d.width;
    if (d.components == 3)
        s << ", component " << comp;
    s << ")";
    return s.str();
}

} // namespace pcwt_corpus

#endif
