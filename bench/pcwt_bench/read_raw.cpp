// read_raw.cpp - see read_raw.hpp.
#include "read_raw.hpp"

#include <cctype>

#include "file_bytes.hpp"
#include "read_codestream.hpp"
#include "sample_words.hpp"

namespace pcwtbench {

namespace {

// Digits at s[pos...] (at most max_digits of them) into v; false when there are none.
bool take_number(const std::string &s, size_t &pos, size_t max_digits, uint32_t &v)
{
    size_t n = 0;
    v = 0;
    while (pos < s.size() && n < max_digits && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        v = v * 10u + static_cast<uint32_t>(s[pos++] - '0');
        ++n;
    }
    return n > 0 && !(pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])));
}

bool take_char(const std::string &s, size_t &pos, char c)
{
    if (pos < s.size() && s[pos] == c) {
        ++pos;
        return true;
    }
    return false;
}

} // namespace

std::optional<RawFormat> parse_raw_format(const std::string &spec)
{
    // WxHxBITS[s][xC[p]]
    RawFormat f;
    size_t pos = 0;
    if (!take_number(spec, pos, 5, f.width) || !take_char(spec, pos, 'x') || !take_number(spec, pos, 5, f.height) ||
        !take_char(spec, pos, 'x') || !take_number(spec, pos, 2, f.bits))
        return std::nullopt;
    f.is_signed = take_char(spec, pos, 's');
    if (take_char(spec, pos, 'x')) {
        if (!take_number(spec, pos, 1, f.components) || (f.components != 1 && f.components != 3))
            return std::nullopt;
        f.planar = take_char(spec, pos, 'p');
    }
    if (pos != spec.size() || f.width == 0 || f.height == 0 || f.width > 65535 || f.height > 65535 || f.bits == 0 ||
        f.bits > 16)
        return std::nullopt;
    return f;
}

void read_raw_file(const std::string &path, const std::string &name, const RawFormat &fmt, LoadedInputs &out)
{
    std::vector<uint8_t> bytes;
    if (!read_input_bytes(path, name, out, bytes))
        return;
    pcwt_image_desc d{fmt.width, fmt.height, fmt.components, fmt.bits <= 8 ? 8u : 16u, fmt.bits,
                      fmt.is_signed ? 1u : 0u, fmt.components == 3 && fmt.planar ? 1u : 0u};
    const size_t frame_bytes = sample_count(d) * (d.bits_allocated / 8u);
    if (bytes.empty() || bytes.size() % frame_bytes != 0) {
        out.problems.push_back({name, path,
                                "unreadable: " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                                    std::to_string(frame_bytes) + "-byte frames"});
        return;
    }
    const uint32_t frames = static_cast<uint32_t>(bytes.size() / frame_bytes);
    for (uint32_t f = 0; f < frames; ++f) {
        Image img;
        img.path = path;
        img.name = frames > 1 ? name + "#" + std::to_string(f + 1) : name;
        img.frame = f;
        img.frame_count = frames;
        img.modality = modality_from_name(path);
        img.source = std::string("raw ") + (fmt.big_endian && d.bits_allocated == 16 ? "big" : "little") + "-endian";
        img.desc = d;
        img.samples.resize(frame_bytes);
        const uint8_t *src = bytes.data() + f * frame_bytes;
        const size_t n = sample_count(d);
        for (size_t i = 0; i < n; ++i) {
            uint32_t w = src[i];
            if (d.bits_allocated == 16)
                w = fmt.big_endian ? (uint32_t{src[2 * i]} << 8 | src[2 * i + 1])
                                   : (uint32_t{src[2 * i + 1]} << 8 | src[2 * i]);
            store_word(img.samples.data(), d.bits_allocated, i, w);
        }
        out.images.push_back(std::move(img));
    }
}

namespace {

// Next header token of a PNM file (skipping whitespace and # comments); false at the end.
bool pnm_token(const std::vector<uint8_t> &b, size_t &pos, std::string &tok)
{
    tok.clear();
    while (pos < b.size()) {
        if (b[pos] == '#') {
            while (pos < b.size() && b[pos] != '\n')
                ++pos;
        } else if (std::isspace(b[pos])) {
            ++pos;
        } else {
            break;
        }
    }
    while (pos < b.size() && !std::isspace(b[pos]) && b[pos] != '#' && tok.size() < 12)
        tok += static_cast<char>(b[pos++]);
    return !tok.empty();
}

bool pnm_number(const std::vector<uint8_t> &b, size_t &pos, uint32_t &v)
{
    std::string tok;
    if (!pnm_token(b, pos, tok) || tok.size() > 9)
        return false;
    for (char c : tok)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    v = static_cast<uint32_t>(std::stoul(tok));
    return true;
}

} // namespace

void read_pnm_file(const std::string &path, const std::string &name, LoadedInputs &out)
{
    std::vector<uint8_t> b;
    if (!read_input_bytes(path, name, out, b))
        return;
    size_t pos = 0;
    std::string magic;
    uint32_t w = 0, h = 0, maxval = 0;
    if (!pnm_token(b, pos, magic) || (magic != "P5" && magic != "P6") || !pnm_number(b, pos, w) ||
        !pnm_number(b, pos, h) || !pnm_number(b, pos, maxval) || pos >= b.size() || !std::isspace(b[pos]) ||
        w == 0 || h == 0 || w > 65535 || h > 65535 || maxval == 0 || maxval > 65535) {
        out.problems.push_back({name, path, "unreadable: bad PGM/PPM header"});
        return;
    }
    ++pos; // the single whitespace before the samples
    uint32_t bits = 0;
    while ((maxval >> bits) != 0)
        ++bits;
    const uint32_t nc = magic == "P6" ? 3u : 1u;
    const uint32_t ba = maxval > 255 ? 16u : 8u;
    pcwt_image_desc d{w, h, nc, ba, bits, 0u, 0u};
    const size_t n = sample_count(d);
    const size_t need = n * (ba / 8u);
    if (b.size() - pos < need) {
        out.problems.push_back({name, path,
                                "unreadable: " + std::to_string(b.size() - pos) + " sample bytes, the header needs " +
                                    std::to_string(need)});
        return;
    }
    Image img;
    img.path = path;
    img.name = name;
    img.modality = modality_from_name(path);
    img.source = magic == "P5" ? "PGM" : "PPM";
    img.photometric = nc == 3 ? "RGB" : "MONOCHROME2";
    img.desc = d;
    img.samples.resize(need);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t v = ba == 8 ? b[pos + i] : (uint32_t{b[pos + 2 * i]} << 8 | b[pos + 2 * i + 1]);
        store_word(img.samples.data(), ba, i, v);
    }
    out.images.push_back(std::move(img));
}

} // namespace pcwtbench
