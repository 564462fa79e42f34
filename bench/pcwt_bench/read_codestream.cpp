// read_codestream.cpp - see read_codestream.hpp.
#include "read_codestream.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "charls_io.hpp"
#include "codec.hpp"
#include "file_bytes.hpp"
#include "openjpeg_io.hpp"
#include "read_dicom.hpp"
#include "sample_words.hpp"

namespace fs = std::filesystem;

namespace pcwtbench {

namespace {

std::string lower(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool is_dicom_candidate(const fs::path &p, const std::string &stem)
{
    const std::string f = lower(p.filename().string());
    return f == stem + ".dcm" || f == stem + "_unc.dcm" || f == stem + "_unc" || f == stem + ".dicom";
}

// A DICOM copy of the same frame beside the codestream or in a sibling folder, or "".
void adopt_companion(Image &img)
{
    const fs::path p(img.path);
    const std::string stem = lower(p.stem().string());
    std::vector<fs::path> dirs = {p.parent_path()};
    std::error_code ec;
    const fs::path parent = p.parent_path().parent_path();
    if (!parent.empty())
        for (const auto &e : fs::directory_iterator(parent, ec))
            if (e.is_directory(ec) && e.path() != p.parent_path())
                dirs.push_back(e.path());
    std::sort(dirs.begin() + 1, dirs.end());
    for (const fs::path &dir : dirs) {
        for (const auto &e : fs::directory_iterator(dir, ec)) {
            if (!e.is_regular_file(ec) || !is_dicom_candidate(e.path(), stem))
                continue;
            LoadedInputs tmp;
            read_dicom_file(e.path().string(), e.path().string(), tmp);
            if (tmp.images.size() != 1)
                continue;
            const Image &c = tmp.images[0];
            if (c.desc.width != img.desc.width || c.desc.height != img.desc.height ||
                c.desc.components != img.desc.components || c.desc.bits_allocated != img.desc.bits_allocated ||
                c.desc.planar != img.desc.planar || c.samples != img.samples) {
                img.note = "DICOM " + e.path().filename().string() + " differs, not used for sign/modality";
                continue;
            }
            img.desc.bits_stored = c.desc.bits_stored;
            img.desc.is_signed = c.desc.is_signed;
            img.modality = c.modality;
            img.photometric = c.photometric;
            img.note = "sign, BitsStored and modality from the identical DICOM " +
                       fs::relative(e.path(), p.parent_path(), ec).string();
            return;
        }
    }
}

} // namespace

std::string modality_from_name(const std::string &path)
{
    static const char *const codes[] = {"CT", "MR", "NM", "PT", "US", "XA", "RF", "CR", "DX", "MG",
                                        "IO", "PX", "RG", "SC", "OT", "XC", "ES", "SM", "OP", "BI"};
    std::string base = fs::path(path).filename().string();
    std::string head;
    for (char c : base) {
        if (!std::isalpha(static_cast<unsigned char>(c)))
            break;
        head += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    for (const char *code : codes)
        if (head == code)
            return code;
    return "?";
}

void read_jpegls_file(const std::string &path, const std::string &name, LoadedInputs &out)
{
    std::vector<uint8_t> bytes;
    if (!read_input_bytes(path, name, out, bytes))
        return;
    JlsFrame f;
    try {
        f = charls_decode_frame(bytes.data(), bytes.size());
    } catch (const CodecError &e) {
        out.problems.push_back({name, path, std::string("unreadable: ") + e.what()});
        return;
    }
    if (f.components != 1 && f.components != 3) {
        out.problems.push_back({name, path, "unsupported: " + std::to_string(f.components) + " components"});
        return;
    }
    Image img;
    img.name = name;
    img.path = path;
    img.source = "JPEG-LS codestream (CharLS)";
    img.modality = modality_from_name(path);
    img.desc = {f.width, f.height, f.components, f.bits <= 8 ? 8u : 16u, f.bits, 0u, f.planar ? 1u : 0u};
    img.samples = std::move(f.samples);
    adopt_companion(img);
    out.images.push_back(std::move(img));
}

void read_j2k_file(const std::string &path, const std::string &name, LoadedInputs &out)
{
    std::vector<uint8_t> bytes;
    if (!read_input_bytes(path, name, out, bytes))
        return;
    J2kFrame f;
    try {
        f = openjpeg_decode_frame(bytes.data(), bytes.size());
    } catch (const CodecError &e) {
        out.problems.push_back({name, path, std::string("unreadable: ") + e.what()});
        return;
    }
    const uint32_t nc = static_cast<uint32_t>(f.planes.size());
    if (nc != 1 && nc != 3) {
        out.problems.push_back({name, path, "unsupported: " + std::to_string(nc) + " components"});
        return;
    }
    for (uint32_t c = 1; c < nc; ++c)
        if (f.precision[c] != f.precision[0] || f.is_signed[c] != f.is_signed[0]) {
            out.problems.push_back({name, path, "unsupported: components of different precision"});
            return;
        }
    if (f.precision[0] > 16 || f.precision[0] == 0) {
        out.problems.push_back({name, path, "unsupported: precision " + std::to_string(f.precision[0])});
        return;
    }
    Image img;
    img.name = name;
    img.path = path;
    img.source = "JPEG 2000 codestream (OpenJPEG)";
    img.modality = modality_from_name(path);
    const uint32_t ba = f.precision[0] <= 8 ? 8u : 16u;
    img.desc = {f.width, f.height, nc, ba, f.precision[0], f.is_signed[0] ? 1u : 0u, 0u};
    img.samples.resize(sample_count(img.desc) * (ba / 8u));
    for (uint32_t c = 0; c < nc; ++c)
        for (uint32_t y = 0; y < f.height; ++y)
            for (uint32_t x = 0; x < f.width; ++x)
                store_word(img.samples.data(), ba, sample_index(img.desc, y, x, c),
                           static_cast<uint32_t>(f.planes[c][static_cast<size_t>(y) * f.width + x]) & word_mask(ba));
    out.images.push_back(std::move(img));
}

} // namespace pcwtbench
