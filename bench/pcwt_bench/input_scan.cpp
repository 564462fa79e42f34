// input_scan.cpp - see input_scan.hpp.
#include "input_scan.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "file_bytes.hpp"
#include "openjpeg_io.hpp"
#include "read_codestream.hpp"
#include "read_dicom.hpp"

namespace fs = std::filesystem;

namespace pcwtbench {

namespace {

enum class Kind { Dicom, JpegLs, Jpeg, J2k, Pnm, Unknown };

// JPEG family: walk the marker segments after SOI to the first SOF; SOF55 (FFF7) is JPEG-LS.
Kind jpeg_kind(const std::vector<uint8_t> &h)
{
    size_t pos = 2;
    while (pos + 4 <= h.size()) {
        if (h[pos] != 0xFF)
            return Kind::Unknown;
        const uint8_t m = h[pos + 1];
        if (m == 0xFF) {
            ++pos;
            continue;
        }
        if (m == 0xF7)
            return Kind::JpegLs;
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC)
            return Kind::Jpeg;
        pos += 2 + (size_t{h[pos + 2]} << 8 | h[pos + 3]);
    }
    return Kind::Jpeg;
}

Kind detect(const std::vector<uint8_t> &h)
{
    if (h.size() >= 132 && h[128] == 'D' && h[129] == 'I' && h[130] == 'C' && h[131] == 'M')
        return Kind::Dicom;
    if (looks_like_j2k(h.data(), h.size()))
        return Kind::J2k;
    if (h.size() >= 4 && h[0] == 0xFF && h[1] == 0xD8 && h[2] == 0xFF)
        return jpeg_kind(h);
    if (h.size() >= 3 && h[0] == 'P' && (h[1] == '5' || h[1] == '6') && std::isspace(h[2]))
        return Kind::Pnm;
    return Kind::Unknown;
}

std::string lower_ext(const std::string &path)
{
    std::string e = fs::path(path).extension().string();
    for (char &c : e)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

struct Candidate {
    std::string path, name;
    bool named; // given on the command line (not found by walking a directory)
};

void read_one(const Candidate &c, const std::optional<RawFormat> &raw, LoadedInputs &out)
{
    std::vector<uint8_t> head;
    std::string why;
    if (!read_file_head(c.path, 1 << 16, head, why)) {
        out.problems.push_back({c.name, c.path, "unreadable: " + why});
        return;
    }
    const std::string ext = lower_ext(c.path);
    switch (detect(head)) {
    case Kind::Dicom:
        read_dicom_file(c.path, c.name, out);
        return;
    case Kind::JpegLs:
        read_jpegls_file(c.path, c.name, out);
        return;
    case Kind::J2k:
        read_j2k_file(c.path, c.name, out);
        return;
    case Kind::Pnm:
        read_pnm_file(c.path, c.name, out);
        return;
    case Kind::Jpeg:
        if (c.named)
            out.problems.push_back({c.name, c.path, "unsupported: a JPEG file that is not JPEG-LS"});
        else
            ++out.ignored_files;
        return;
    case Kind::Unknown:
        break;
    }
    if (raw && (c.named || ext == ".raw")) {
        read_raw_file(c.path, c.name, *raw, out);
        return;
    }
    if (c.named || ext == ".dcm" || ext == ".dicom") {
        // Maybe a DICOM data set without the preamble; DCMTK decides.
        LoadedInputs tmp;
        read_dicom_file(c.path, c.name, tmp);
        if (!tmp.images.empty()) {
            for (Image &img : tmp.images)
                out.images.push_back(std::move(img));
            return;
        }
        const std::string detail = tmp.problems.empty() ? std::string() : " (" + tmp.problems[0].status + ")";
        out.problems.push_back({c.name, c.path,
                                "unreadable: not a DICOM, JPEG-LS, JPEG 2000 or PGM/PPM file" + detail +
                                    (raw ? "" : "; raw samples need --raw")});
        return;
    }
    ++out.ignored_files;
}

std::vector<Candidate> collect(const std::vector<std::string> &paths, LoadedInputs &out)
{
    std::vector<Candidate> cands;
    for (const std::string &p : paths) {
        std::error_code ec;
        const fs::file_status st = fs::status(p, ec);
        if (ec || !fs::exists(st)) {
            out.problems.push_back({p, p, "unreadable: no such file or directory"});
            continue;
        }
        if (!fs::is_directory(st)) {
            cands.push_back({p, p, true});
            continue;
        }
        std::vector<Candidate> found;
        fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            std::error_code fec;
            if (it->is_regular_file(fec))
                found.push_back({it->path().string(), it->path().lexically_relative(p).generic_string(), false});
        }
        if (ec)
            out.problems.push_back({p, p, "unreadable: walking the directory failed: " + ec.message()});
        std::sort(found.begin(), found.end(), [](const Candidate &a, const Candidate &b) { return a.name < b.name; });
        cands.insert(cands.end(), found.begin(), found.end());
    }
    return cands;
}

void make_names_unique(LoadedInputs &in)
{
    std::map<std::string, int> seen;
    for (Image &img : in.images) {
        const int n = ++seen[img.name];
        if (n > 1)
            img.name += " [" + std::to_string(n) + "]";
    }
}

} // namespace

LoadedInputs load_inputs(const std::vector<std::string> &paths, const std::optional<RawFormat> &raw,
                         const std::function<void(size_t, size_t, const std::string &)> &progress)
{
    register_dicom_decoders();
    LoadedInputs out;
    const std::vector<Candidate> cands = collect(paths, out);
    for (size_t i = 0; i < cands.size(); ++i) {
        read_one(cands[i], raw, out);
        if (progress)
            progress(i + 1, cands.size(), cands[i].name);
    }
    make_names_unique(out);
    for (Image &img : out.images)
        img.peer = choose_peer_mapping(img.desc, img.samples.data());
    return out;
}

} // namespace pcwtbench
