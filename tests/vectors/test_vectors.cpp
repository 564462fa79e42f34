// Reference test vectors: the baseline profile must produce group payloads byte-identical to
// shared/reference/pcwt_ref.py. The vectors (*.vec, format in README.md and gen_vectors.py) were
// generated once from the model; this test needs no Python. Only the public API is used.
// Built with PCWT_VECTOR_PROFILE=1 (test_vectors_entropy) it checks the entropy profile against
// the vectors of tests/vectors/entropy, made by pcwt_ec_ref.py (FORMAT.md Sec. 5).
// Every vector sets the lifting order explicitly (the optional `columns_first` key, 0 when absent:
// rows first), never PCWT_LIFTING_AUTO, so that a change of the default never changes what a
// vector tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "pcwt.h"

#ifndef PCWT_VECTOR_PROFILE
#define PCWT_VECTOR_PROFILE 0
#endif

#ifndef PCWT_VECTOR_DIR
#error "PCWT_VECTOR_DIR must name the directory holding the .vec files"
#endif

namespace {

namespace fs = std::filesystem;

// Fewest vectors the directory must hold; fewer means the checkout is broken.
constexpr size_t kMinVectors = 12;

struct Vector {
    std::string name;
    uint32_t rows = 0, cols = 0, levels = 0, group_rows = 0, group_cols = 0;
    uint32_t bits_allocated = 0, bits_stored = 0, is_signed = 0;
    int32_t qmax = 0;
    uint64_t groups = 0, payload_length = 0;
    uint32_t low_bits = 0; // entropy profile: plane option bit 0 (optional key)
    uint32_t columns_first = 0; // lifting order, header flag bit 3 (optional key; 0: rows first)
    uint32_t second_bit = 0; // entropy profile: plane option bit 4 (optional key; 0: raw)
    std::vector<int64_t> samples;
    std::vector<uint8_t> payload;
};

std::vector<std::string> ListVectors() {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(PCWT_VECTOR_DIR, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".vec") {
            out.push_back(it->path().string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

int HexDigit(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

// Reads a non-negative integer token into *out; false if malformed or out of range.
template <typename T>
bool ReadUnsigned(std::istream &in, T *out) {
    std::string tok;
    if (!(in >> tok) || tok.empty()) return false;
    uint64_t v = 0;
    for (char ch : tok) {
        if (ch < '0' || ch > '9') return false;
        if (v > (std::numeric_limits<uint64_t>::max() - 9u) / 10u) return false;
        v = v * 10u + static_cast<uint64_t>(ch - '0');
    }
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    *out = static_cast<T>(v);
    return true;
}

bool ReadSigned(std::istream &in, int64_t *out) {
    std::string tok;
    if (!(in >> tok) || tok.empty()) return false;
    size_t pos = 0;
    try {
        long long v = std::stoll(tok, &pos, 10);
        if (pos != tok.size()) return false;
        *out = static_cast<int64_t>(v);
    } catch (...) {
        return false;
    }
    return true;
}

// Parses a .vec file; on failure returns false and describes the problem in *err.
bool ParseVector(const std::string &path, Vector *v, std::string *err) {
    std::ifstream file(path);
    if (!file) {
        *err = "cannot open " + path;
        return false;
    }
    // Drop comment lines, keep the rest as one token stream.
    std::stringstream in;
    std::string line;
    while (std::getline(file, line)) {
        size_t first = line.find_first_not_of(" \t\r");
        if (first != std::string::npos && line[first] == '#') continue;
        in << line << '\n';
    }
    const char *const keys[] = {"name",   "rows",   "cols",          "levels",      "group_rows",
                                "group_cols",       "bits_allocated", "bits_stored", "signed",
                                "qmax",   "groups", "payload_length"};
    for (const char *key : keys) {
        std::string tok;
        if (!(in >> tok) || tok != key) {
            *err = std::string("expected key '") + key + "', got '" + tok + "'";
            return false;
        }
        bool ok = true;
        std::string k(key);
        if (k == "name") ok = static_cast<bool>(in >> v->name);
        else if (k == "rows") ok = ReadUnsigned(in, &v->rows);
        else if (k == "cols") ok = ReadUnsigned(in, &v->cols);
        else if (k == "levels") ok = ReadUnsigned(in, &v->levels);
        else if (k == "group_rows") ok = ReadUnsigned(in, &v->group_rows);
        else if (k == "group_cols") ok = ReadUnsigned(in, &v->group_cols);
        else if (k == "bits_allocated") ok = ReadUnsigned(in, &v->bits_allocated);
        else if (k == "bits_stored") ok = ReadUnsigned(in, &v->bits_stored);
        else if (k == "signed") ok = ReadUnsigned(in, &v->is_signed);
        else if (k == "groups") ok = ReadUnsigned(in, &v->groups);
        else if (k == "payload_length") ok = ReadUnsigned(in, &v->payload_length);
        else if (k == "qmax") {
            int64_t q = 0;
            ok = ReadSigned(in, &q) && q >= -1 && q <= 64;
            v->qmax = static_cast<int32_t>(q);
        }
        if (!ok) {
            *err = std::string("bad value for '") + key + "'";
            return false;
        }
    }
    if (v->rows == 0 || v->cols == 0 || v->levels == 0 || v->group_rows == 0 ||
        v->group_cols == 0 || (v->bits_allocated != 8 && v->bits_allocated != 16) ||
        v->bits_stored == 0 || v->bits_stored > v->bits_allocated || v->is_signed > 1) {
        *err = "inconsistent header fields";
        return false;
    }
    if (static_cast<uint64_t>(v->rows) * v->cols > (1u << 20)) {
        *err = "image too large for a vector";
        return false;
    }
    // Optional keys, in this order, before `samples`.
    std::string tok;
    in >> tok;
    if (tok == "low_bits") {
        if (!ReadUnsigned(in, &v->low_bits) || v->low_bits > 1) {
            *err = "bad value for 'low_bits'";
            return false;
        }
        tok.clear();
        in >> tok;
    }
    if (tok == "columns_first") {
        if (!ReadUnsigned(in, &v->columns_first) || v->columns_first > 1) {
            *err = "bad value for 'columns_first'";
            return false;
        }
        tok.clear();
        in >> tok;
    }
    if (tok == "second_bit") {
        if (!ReadUnsigned(in, &v->second_bit) || v->second_bit > 1) {
            *err = "bad value for 'second_bit'";
            return false;
        }
        tok.clear();
        in >> tok;
    }
    if (tok != "samples") {
        *err = "expected 'samples', got '" + tok + "'";
        return false;
    }
    const int64_t lo = v->is_signed ? -(int64_t{1} << (v->bits_stored - 1)) : 0;
    const int64_t hi = v->is_signed ? (int64_t{1} << (v->bits_stored - 1)) - 1
                                    : (int64_t{1} << v->bits_stored) - 1;
    const size_t n = static_cast<size_t>(v->rows) * v->cols;
    v->samples.resize(n);
    for (size_t i = 0; i < n; ++i) {
        if (!ReadSigned(in, &v->samples[i])) {
            *err = "bad sample #" + std::to_string(i);
            return false;
        }
        if (v->samples[i] < lo || v->samples[i] > hi) {
            *err = "sample #" + std::to_string(i) + " out of range for the bit depth";
            return false;
        }
    }
    if (!(in >> tok) || tok != "payload") {
        *err = "expected 'payload' after " + std::to_string(n) + " samples, got '" + tok + "'";
        return false;
    }
    while (in >> tok && tok != "end") {
        if (tok.size() % 2 != 0) {
            *err = "odd-length hex token in payload";
            return false;
        }
        for (size_t i = 0; i < tok.size(); i += 2) {
            int a = HexDigit(tok[i]), b = HexDigit(tok[i + 1]);
            if (a < 0 || b < 0) {
                *err = "bad hex digit in payload";
                return false;
            }
            v->payload.push_back(static_cast<uint8_t>(a * 16 + b));
        }
    }
    if (tok != "end") {
        *err = "missing 'end'";
        return false;
    }
    if (v->payload.size() != v->payload_length) {
        *err = "payload has " + std::to_string(v->payload.size()) + " bytes, header says " +
               std::to_string(v->payload_length);
        return false;
    }
    return true;
}

// Splits the expected payload into group records: start offset of each record's length word.
// Returns false if the payload is not exactly a sequence of [u32 LE bits][ceil(bits/8) bytes].
// Reads an unsigned LEB128 value (entropy profile group records).
bool Leb128(const std::vector<uint8_t> &p, size_t *pos, uint64_t *v) {
    *v = 0;
    for (int i = 0; i < 5; ++i) {
        if (*pos >= p.size()) return false;
        const uint8_t b = p[(*pos)++];
        *v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) return true;
    }
    return false;
}

bool GroupOffsets(const std::vector<uint8_t> &p, std::vector<size_t> *starts) {
    size_t pos = 0;
    if (PCWT_VECTOR_PROFILE == PCWT_PROFILE_ENTROPY) {
        while (pos < p.size()) {
            starts->push_back(pos);
            uint64_t h, r = 0;
            if (!Leb128(p, &pos, &h)) return false;
            uint64_t len = (h & 1) ? ((h >> 1) + 7) / 8 : (h >> 1);
            if (!(h & 1)) {
                if (!Leb128(p, &pos, &r)) return false;
                len += r;
            }
            if (p.size() - pos < len) return false;
            pos += static_cast<size_t>(len);
        }
        return true;
    }
    while (pos < p.size()) {
        if (p.size() - pos < 4) return false;
        uint32_t bits = static_cast<uint32_t>(p[pos]) | (static_cast<uint32_t>(p[pos + 1]) << 8) |
                        (static_cast<uint32_t>(p[pos + 2]) << 16) |
                        (static_cast<uint32_t>(p[pos + 3]) << 24);
        size_t bytes = (static_cast<size_t>(bits) + 7u) / 8u;
        if (p.size() - pos - 4 < bytes) return false;
        starts->push_back(pos);
        pos += 4 + bytes;
    }
    return true;
}

// Host-order sample buffer for the descriptor (uint8_t, or uint16_t/int16_t words).
std::vector<uint8_t> PackSamples(const Vector &v) {
    const size_t n = v.samples.size();
    std::vector<uint8_t> buf;
    if (v.bits_allocated == 8) {
        buf.resize(n);
        for (size_t i = 0; i < n; ++i) {
            // two's complement byte for signed samples
            buf[i] = static_cast<uint8_t>(static_cast<uint64_t>(v.samples[i]) & 0xFFu);
        }
    } else {
        buf.resize(n * 2);
        for (size_t i = 0; i < n; ++i) {
            if (v.is_signed) {
                const int16_t s = static_cast<int16_t>(v.samples[i]);
                std::memcpy(&buf[i * 2], &s, sizeof s);
            } else {
                const uint16_t u = static_cast<uint16_t>(v.samples[i]);
                std::memcpy(&buf[i * 2], &u, sizeof u);
            }
        }
    }
    return buf;
}

int64_t SampleAt(const Vector &v, const std::vector<uint8_t> &buf, size_t i) {
    if (v.bits_allocated == 8) {
        return v.is_signed ? static_cast<int64_t>(static_cast<int8_t>(buf[i]))
                           : static_cast<int64_t>(buf[i]);
    }
    if (v.is_signed) {
        int16_t s;
        std::memcpy(&s, &buf[i * 2], sizeof s);
        return s;
    }
    uint16_t u;
    std::memcpy(&u, &buf[i * 2], sizeof u);
    return u;
}

std::string TestName(const ::testing::TestParamInfo<std::string> &info) {
    std::string stem = fs::path(info.param).stem().string();
    for (char &ch : stem) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
    return stem;
}

TEST(vectors, DirectoryHoldsEnoughVectors) {
    const std::vector<std::string> files = ListVectors();
    EXPECT_GE(files.size(), kMinVectors) << "too few .vec files in " << PCWT_VECTOR_DIR;
}

class ReferenceVector : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceVector, MatchesModelAndRoundTrips) {
    Vector v;
    std::string err;
    ASSERT_TRUE(ParseVector(GetParam(), &v, &err)) << GetParam() << ": " << err;
    ASSERT_EQ(v.name, fs::path(GetParam()).stem().string()) << "name field differs from file name";
    std::vector<size_t> group_starts;
    ASSERT_TRUE(GroupOffsets(v.payload, &group_starts)) << "expected payload is malformed";
    ASSERT_EQ(group_starts.size(), v.groups) << "expected payload group count";

    pcwt_image_desc desc{};
    desc.width = v.cols;
    desc.height = v.rows;
    desc.components = 1;
    desc.bits_allocated = v.bits_allocated;
    desc.bits_stored = v.bits_stored;
    desc.is_signed = v.is_signed;
    desc.planar = 0;
    const std::vector<uint8_t> samples = PackSamples(v);
    ASSERT_EQ(pcwt_image_size(&desc), samples.size());

    pcwt_encode_params params;
    pcwt_encode_params_default(&params);
    params.levels = v.levels;
    params.group_rows = v.group_rows;
    params.group_cols = v.group_cols;
    params.min_ll = 1; // apply exactly the requested levels, as the model does
    params.profile = static_cast<pcwt_profile>(PCWT_VECTOR_PROFILE);
    params.backend = PCWT_BACKEND_CPU;
    // Explicit, never PCWT_LIFTING_AUTO: what a vector tests must not follow the default.
    params.lifting_order = v.columns_first ? PCWT_LIFTING_COLUMNS_FIRST : PCWT_LIFTING_ROWS_FIRST;
    params.level1_filter = PCWT_LEVEL1_53; // the models lift 5/3 at every level
    // explicit too: the vectors without the key were made before the option existed
    params.second_bit = v.second_bit ? PCWT_SECOND_BIT_ON : PCWT_SECOND_BIT_OFF;

    pcwt_encoder *enc = pcwt_encoder_create();
    ASSERT_NE(enc, nullptr);
    pcwt_status st = pcwt_encoder_set_params(enc, &params);
    ASSERT_EQ(st, PCWT_OK) << pcwt_status_string(st) << ": " << pcwt_encoder_last_error(enc);

    const size_t bound = pcwt_encode_bound(&desc);
    ASSERT_GT(bound, 0u);
    std::vector<uint8_t> stream(bound);
    size_t written = 0;
    st = pcwt_encode(enc, &desc, samples.data(), samples.size(), stream.data(), stream.size(),
                     &written);
    const std::string enc_err = pcwt_encoder_last_error(enc);
    pcwt_encoder_destroy(enc);
    ASSERT_EQ(st, PCWT_OK) << pcwt_status_string(st) << ": " << enc_err;
    ASSERT_GT(written, 0u);
    ASSERT_LE(written, bound);
    stream.resize(written);

    pcwt_header_info info;
    std::memset(&info, 0, sizeof info);
    st = pcwt_read_header(stream.data(), stream.size(), &info);
    ASSERT_EQ(st, PCWT_OK) << pcwt_status_string(st);
    EXPECT_EQ(info.profile, static_cast<pcwt_profile>(PCWT_VECTOR_PROFILE));
    EXPECT_EQ(info.desc.width, v.cols);
    EXPECT_EQ(info.desc.height, v.rows);
    EXPECT_EQ(info.desc.components, 1u);
    EXPECT_EQ(info.desc.bits_allocated, v.bits_allocated);
    EXPECT_EQ(info.desc.bits_stored, v.bits_stored);
    EXPECT_EQ(info.desc.is_signed, v.is_signed);
    EXPECT_EQ(info.group_rows, v.group_rows);
    EXPECT_EQ(info.group_cols, v.group_cols);
    EXPECT_EQ(info.codestream_length, written);
    EXPECT_EQ(info.columns_first, v.columns_first) << "header flag bit 3 (lifting order)";
    ASSERT_EQ(info.levels, v.levels) << "library applied a different number of levels";
    ASSERT_EQ(info.plane_count, 1u);
    EXPECT_EQ(info.planes[0].component, 0u);
    EXPECT_EQ(info.planes[0].kind, 0u);
    EXPECT_EQ(info.planes[0].qmax, v.qmax) << "Qmax differs from the model";
    EXPECT_EQ(info.planes[0].low_bits, v.low_bits) << "the low-bit decision differs from the model";
    EXPECT_EQ(info.planes[0].second_bit, PCWT_VECTOR_PROFILE ? v.second_bit : 0u) << "plane option bit 4";

    // Plane 0's payload starts right after the header.
    ASSERT_LE(info.header_length, written);
    const size_t avail = written - info.header_length;
    ASSERT_LE(info.planes[0].payload_length, static_cast<uint64_t>(avail))
        << "plane 0 payload runs past the codestream";
    const uint8_t *got = stream.data() + info.header_length;
    const size_t got_len = static_cast<size_t>(info.planes[0].payload_length);
    const size_t common = std::min(got_len, v.payload.size());
    size_t diff = common;
    for (size_t i = 0; i < common; ++i) {
        if (got[i] != v.payload[i]) {
            diff = i;
            break;
        }
    }
    if (diff != common || got_len != v.payload.size()) {
        // Locate the group record that holds the first difference (in the expected payload).
        size_t g = 0;
        while (g + 1 < group_starts.size() && group_starts[g + 1] <= diff) ++g;
        const size_t in_group = group_starts.empty() ? diff : diff - group_starts[g];
        std::ostringstream msg;
        msg << "payload differs from the model: library " << got_len << " bytes, model "
            << v.payload.size() << " bytes; ";
        if (diff < common) {
            msg << "first difference at payload byte " << diff << " (library 0x" << std::hex
                << static_cast<unsigned>(got[diff]) << ", model 0x"
                << static_cast<unsigned>(v.payload[diff]) << std::dec << ")";
        } else {
            msg << "one is a prefix of the other; lengths differ from byte " << diff;
        }
        msg << ", in group record " << g << " of " << group_starts.size() << " at byte "
            << in_group
            << (PCWT_VECTOR_PROFILE != 0 ? "" : in_group < 4 ? " (the 32-bit length word)" : " (group bits)");
        ADD_FAILURE() << msg.str();
    }

    // Decode and compare every sample with the input.
    pcwt_decoder *dec = pcwt_decoder_create();
    ASSERT_NE(dec, nullptr);
    std::vector<uint8_t> out(samples.size() + 16, 0xA5);
    st = pcwt_decode(dec, stream.data(), stream.size(), out.data(), samples.size());
    const std::string dec_err = pcwt_decoder_last_error(dec);
    pcwt_decoder_destroy(dec);
    ASSERT_EQ(st, PCWT_OK) << pcwt_status_string(st) << ": " << dec_err;
    size_t mismatches = 0;
    for (size_t i = 0; i < v.samples.size(); ++i) {
        const int64_t s = SampleAt(v, out, i);
        if (s != v.samples[i]) {
            if (mismatches < 5) {
                ADD_FAILURE() << "decoded sample (row " << i / v.cols << ", col " << i % v.cols
                              << ") is " << s << ", expected " << v.samples[i];
            }
            ++mismatches;
        }
    }
    EXPECT_EQ(mismatches, 0u);
    for (size_t i = samples.size(); i < out.size(); ++i) {
        ASSERT_EQ(out[i], 0xA5) << "decoder wrote past dst_capacity";
    }
}

INSTANTIATE_TEST_SUITE_P(vectors, ReferenceVector, ::testing::ValuesIn(ListVectors()), TestName);

} // namespace
