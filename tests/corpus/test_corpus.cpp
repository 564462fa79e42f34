// Round trips of every frame of the shared test corpus (shared/testdata), exported as raw frames by
// tests/corpus/export_corpus.py (the ctest fixture "corpus"). Each frame is encoded with the default
// parameters on the CPU backend, its header is checked against the descriptor, and the decoded
// frame must equal the input in every stored word, bits above bits_stored included.
//
// The frame list is only known at run time (the manifest is written by the fixture, after the build),
// so one test loops over the frames and reports every failing file with ADD_FAILURE.
//
// Environment overrides: see corpus_gtest.hpp.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_gtest.hpp"
#include "pcwt.h"

namespace {

using pcwt_corpus::Frame;
using pcwt_corpus::Manifest;
using pcwt_corpus::manifest;
using pcwt_corpus::manifest_path;
using pcwt_corpus::testdata_dir;

struct EncoderDeleter {
    void operator()(pcwt_encoder *e) const { pcwt_encoder_destroy(e); }
};
struct DecoderDeleter {
    void operator()(pcwt_decoder *d) const { pcwt_decoder_destroy(d); }
};

std::string desc_text(const pcwt_image_desc &d)
{
    std::ostringstream s;
    s << d.width << "x" << d.height << " c" << d.components << " ba" << d.bits_allocated << " bs"
      << d.bits_stored << (d.is_signed ? " signed" : " unsigned") << " planar" << d.planar;
    return s.str();
}

struct RoundTrip {
    std::string error; // "" when the frame round-tripped exactly
    size_t raw_bytes = 0;
    size_t coded_bytes = 0;
    pcwt_header_info info{};
};

// like_entropy: the transform and groups of the entropy profile's defaults (columns lifted first,
// 64x16 groups) whatever the profile, so that the two profiles code the same planes and groups.
RoundTrip round_trip(const Frame &fr, pcwt_profile profile = PCWT_PROFILE_BASELINE,
                     pcwt_colour_transform colour = PCWT_COLOUR_AUTO, bool like_entropy = false,
                     pcwt_value_map_mode value_map = PCWT_VALUE_MAP_AUTO)
{
    RoundTrip r;
    std::vector<unsigned char> samples;
    r.error = pcwt_corpus::load_raw(fr, &samples);
    if (!r.error.empty())
        return r;
    r.raw_bytes = samples.size();
    const pcwt_image_desc &d = fr.desc;

    std::unique_ptr<pcwt_encoder, EncoderDeleter> enc(pcwt_encoder_create());
    std::unique_ptr<pcwt_decoder, DecoderDeleter> dec(pcwt_decoder_create());
    if (!enc || !dec)
        return r.error = "handle creation failed", r;
    pcwt_encode_params params;
    pcwt_encode_params_default(&params);
    params.backend = PCWT_BACKEND_CPU;
    params.profile = profile;
    params.colour_transform = colour;
    params.value_map = value_map;
    if (like_entropy) {
        params.lifting_order = PCWT_LIFTING_COLUMNS_FIRST;
        params.group_rows = PCWT_ENTROPY_GROUP_ROWS;
        params.group_cols = PCWT_ENTROPY_GROUP_COLS;
    }
    pcwt_status st = pcwt_encoder_set_params(enc.get(), &params);
    if (st != PCWT_OK)
        return r.error = std::string("pcwt_encoder_set_params: ") + pcwt_status_string(st), r;

    const size_t bound = pcwt_encode_bound(&d);
    if (bound == 0)
        return r.error = "pcwt_encode_bound() is 0 for " + desc_text(d), r;
    std::vector<unsigned char> coded(bound);
    size_t written = 0;
    st = pcwt_encode(enc.get(), &d, samples.data(), samples.size(), coded.data(), coded.size(),
                     &written);
    if (st != PCWT_OK)
        return r.error = std::string("pcwt_encode: ") + pcwt_status_string(st) + ": " +
                         pcwt_encoder_last_error(enc.get()),
               r;
    if (written == 0 || written > bound)
        return r.error = "pcwt_encode wrote " + std::to_string(written) + " bytes, bound " +
                         std::to_string(bound),
               r;
    r.coded_bytes = written;

    // Header against the descriptor and the parameters.
    pcwt_header_info &h = r.info;
    st = pcwt_read_header(coded.data(), written, &h);
    if (st != PCWT_OK)
        return r.error = std::string("pcwt_read_header: ") + pcwt_status_string(st), r;
    std::ostringstream herr;
    const pcwt_image_desc &hd = h.desc;
    if (hd.width != d.width || hd.height != d.height || hd.components != d.components ||
        hd.bits_allocated != d.bits_allocated || hd.bits_stored != d.bits_stored ||
        hd.is_signed != d.is_signed || (d.components == 3 && hd.planar != d.planar))
        herr << "header describes " << desc_text(hd) << ", input was " << desc_text(d) << "; ";
    if (h.format_version != PCWT_FORMAT_VERSION)
        herr << "format_version " << h.format_version << "; ";
    if (h.profile != profile)
        herr << "profile " << static_cast<int>(h.profile) << "; ";
    if (h.levels > PCWT_DEFAULT_LEVELS)
        herr << "levels " << h.levels << " > " << PCWT_DEFAULT_LEVELS << "; ";
    const bool entropy_layout = like_entropy || profile != PCWT_PROFILE_BASELINE;
    if (h.group_rows != (entropy_layout ? PCWT_ENTROPY_GROUP_ROWS : PCWT_DEFAULT_GROUP) ||
        h.group_cols != (entropy_layout ? PCWT_ENTROPY_GROUP_COLS : PCWT_DEFAULT_GROUP))
        herr << "group " << h.group_rows << "x" << h.group_cols << "; ";
    if (h.columns_first != (entropy_layout ? 1u : 0u))
        herr << "columns_first " << h.columns_first << "; ";
    if (h.plane_count < d.components || h.plane_count > 6)
        herr << "plane_count " << h.plane_count << "; ";
    if (h.codestream_length != written)
        herr << "codestream_length " << h.codestream_length << " != written " << written << "; ";
    uint64_t payloads = 0;
    for (uint32_t p = 0; p < h.plane_count && p < 6; ++p)
        payloads += h.planes[p].payload_length;
    if (h.header_length + payloads != h.codestream_length)
        herr << "header_length " << h.header_length << " + payloads " << payloads
             << " != codestream_length " << h.codestream_length << "; ";
    if (!herr.str().empty())
        return r.error = "header: " + herr.str(), r;

    // Decode into a poisoned buffer and compare every stored word.
    st = pcwt_decoder_set_backend(dec.get(), PCWT_BACKEND_CPU);
    if (st != PCWT_OK)
        return r.error = std::string("pcwt_decoder_set_backend: ") + pcwt_status_string(st), r;
    std::vector<unsigned char> out(samples.size(), 0xA5);
    st = pcwt_decode(dec.get(), coded.data(), written, out.data(), out.size());
    if (st != PCWT_OK)
        return r.error = std::string("pcwt_decode: ") + pcwt_status_string(st) + ": " +
                         pcwt_decoder_last_error(dec.get()),
               r;
    if (std::memcmp(out.data(), samples.data(), samples.size()) != 0) {
        const size_t n = samples.size() / (d.bits_allocated / 8);
        size_t first = n, count = 0;
        for (size_t i = 0; i < n; ++i)
            if (pcwt_corpus::word_at(d, out.data(), i) != pcwt_corpus::word_at(d, samples.data(), i)) {
                if (first == n)
                    first = i;
                ++count;
            }
        char words[96];
        std::snprintf(words, sizeof words, "expected 0x%04X, decoded 0x%04X",
                      static_cast<unsigned>(pcwt_corpus::word_at(d, samples.data(), first)),
                      static_cast<unsigned>(pcwt_corpus::word_at(d, out.data(), first)));
        r.error = "decoded frame differs in " + std::to_string(count) + " of " + std::to_string(n) +
                  " samples; first at " + pcwt_corpus::sample_position(d, first) + ": " + words;
    }
    return r;
}

// Samples whose bits above bits_stored are neither zero nor (for signed data) the sign extension.
size_t garbage_high_bits(const Frame &fr, const std::vector<unsigned char> &samples)
{
    const pcwt_image_desc &d = fr.desc;
    if (d.bits_stored >= d.bits_allocated)
        return 0;
    const size_t n = samples.size() / (d.bits_allocated / 8);
    const uint32_t high_all = (1u << (d.bits_allocated - d.bits_stored)) - 1u;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t w = pcwt_corpus::word_at(d, samples.data(), i);
        const uint32_t high = w >> d.bits_stored;
        const uint32_t sign = (w >> (d.bits_stored - 1)) & 1u;
        if (high != 0 && !(d.is_signed && sign == 1 && high == high_all))
            ++count;
    }
    return count;
}

TEST(corpus, ManifestListsFrames)
{
    REQUIRE_CORPUS();
    const Manifest &m = manifest();
    for (const Frame &fr : m.frames) {
        EXPECT_NE(pcwt_image_size(&fr.desc), 0u)
            << fr.name() << ": descriptor " << desc_text(fr.desc) << " rejected";
        struct stat st;
        EXPECT_EQ(stat(fr.raw_path.c_str(), &st), 0) << fr.name() << ": " << fr.raw_path << " missing";
    }
    std::printf("[ corpus ] %zu frames in %s\n", m.frames.size(), manifest_path().c_str());
}

TEST(corpus, RoundTripEveryFrame)
{
    REQUIRE_CORPUS();
    const Manifest &m = manifest();
    size_t passed = 0, raw_total = 0, coded_total = 0;
    for (const Frame &fr : m.frames) {
        const RoundTrip r = round_trip(fr);
        if (!r.error.empty()) {
            ADD_FAILURE() << fr.name() << " [" << desc_text(fr.desc) << ", " << fr.raw_rel
                          << "]: " << r.error;
            continue;
        }
        ++passed;
        raw_total += r.raw_bytes;
        coded_total += r.coded_bytes;
    }
    EXPECT_EQ(passed, m.frames.size()) << (m.frames.size() - passed) << " frames failed";
    if (coded_total > 0)
        std::printf("[ corpus ] %zu/%zu frames exact; %zu raw bytes -> %zu coded (ratio %.3f)\n", passed,
                    m.frames.size(), raw_total, coded_total,
                    static_cast<double>(raw_total) / static_cast<double>(coded_total));
}

// The entropy profile (docs/FORMAT.md Sec. 5) on every frame: exact, and never larger than the
// baseline (a group falls back to its baseline bit string when range coding does not pay). The
// rule holds group by group, so the baseline codes the same planes and groups: with the entropy
// profile's lifting order and group size, and colour frames without the colour transform, which
// the entropy profile applies by default and which changes the planes (Sec. 2.1); with it they
// are checked exact.
TEST(corpus, RoundTripEveryFrameEntropyProfile)
{
    REQUIRE_CORPUS();
    const Manifest &m = manifest();
    size_t passed = 0, raw_total = 0, coded_total = 0, baseline_total = 0;
    for (const Frame &fr : m.frames) {
        const RoundTrip r = round_trip(fr, PCWT_PROFILE_ENTROPY);
        if (!r.error.empty()) {
            ADD_FAILURE() << fr.name() << " [" << desc_text(fr.desc) << ", " << fr.raw_rel
                          << "] entropy profile: " << r.error;
            continue;
        }
        const RoundTrip b = round_trip(fr, PCWT_PROFILE_BASELINE, PCWT_COLOUR_AUTO, true);
        ASSERT_EQ(b.error, "") << fr.name();
        const RoundTrip same = fr.desc.components == 3
                                   ? round_trip(fr, PCWT_PROFILE_ENTROPY, PCWT_COLOUR_NONE)
                                   : r;
        ASSERT_EQ(same.error, "") << fr.name();
        EXPECT_LE(same.coded_bytes, b.coded_bytes) << fr.name() << ": entropy profile larger than baseline";
        ++passed;
        raw_total += r.raw_bytes;
        coded_total += r.coded_bytes;
        baseline_total += b.coded_bytes;
    }
    EXPECT_EQ(passed, m.frames.size()) << (m.frames.size() - passed) << " frames failed";
    // Measured 2026-11-22: the entropy profile codes the corpus about 10% smaller than the baseline.
    EXPECT_LT(coded_total * 100, baseline_total * 95) << "entropy profile less than 5% smaller";
    if (coded_total > 0)
        std::printf("[ corpus ] entropy profile: %zu/%zu frames exact; %zu raw bytes -> %zu coded "
                    "(ratio %.3f; baseline %zu, ratio %.3f)\n",
                    passed, m.frames.size(), raw_total, coded_total,
                    static_cast<double>(raw_total) / static_cast<double>(coded_total), baseline_total,
                    static_cast<double>(raw_total) / static_cast<double>(baseline_total));
}

// The compact profile (docs/FORMAT.md Secs. 5.5-5.6) on every frame: exact with value maps as the
// encoder decides and with every plane mapped (value maps forced on: the map of every frame's
// planes read back, whatever their values); in aggregate smaller than the entropy profile.
TEST(corpus, RoundTripEveryFrameCompactProfile)
{
    REQUIRE_CORPUS();
    const Manifest &m = manifest();
    size_t passed = 0, raw_total = 0, coded_total = 0, entropy_total = 0, mapped_frames = 0;
    for (const Frame &fr : m.frames) {
        const RoundTrip r = round_trip(fr, PCWT_PROFILE_COMPACT);
        const RoundTrip all = round_trip(fr, PCWT_PROFILE_COMPACT, PCWT_COLOUR_AUTO, false, PCWT_VALUE_MAP_ON);
        const RoundTrip e = round_trip(fr, PCWT_PROFILE_ENTROPY);
        if (!r.error.empty() || !all.error.empty() || !e.error.empty()) {
            ADD_FAILURE() << fr.name() << " [" << desc_text(fr.desc) << ", " << fr.raw_rel
                          << "] compact profile: " << r.error << " / value maps on: " << all.error
                          << " / entropy: " << e.error;
            continue;
        }
        for (uint32_t p = 0; p < all.info.plane_count; p++)
            EXPECT_EQ(all.info.planes[p].value_map, 1u) << fr.name() << " plane " << p;
        bool mapped = false, offset = false;
        for (uint32_t p = 0; p < r.info.plane_count; p++) {
            mapped = mapped || r.info.planes[p].value_map;
            offset = offset || r.info.planes[p].offset;
        }
        if (!mapped && !offset) {
            EXPECT_EQ(r.coded_bytes, e.coded_bytes)
                << fr.name() << ": without maps or offsets, the entropy profile's size";
        }
        ++passed;
        mapped_frames += mapped;
        raw_total += r.raw_bytes;
        coded_total += r.coded_bytes;
        entropy_total += e.coded_bytes;
    }
    EXPECT_EQ(passed, m.frames.size()) << (m.frames.size() - passed) << " frames failed";
    EXPECT_GT(mapped_frames, 0u);
    EXPECT_LT(coded_total * 100, entropy_total * 97) << "compact profile less than 3% smaller than entropy";
    if (coded_total > 0)
        std::printf("[ corpus ] compact profile: %zu/%zu frames exact, %zu with value maps; %zu raw bytes -> "
                    "%zu coded (ratio %.3f; entropy profile %zu, ratio %.3f)\n",
                    passed, m.frames.size(), mapped_frames, raw_total, coded_total,
                    static_cast<double>(raw_total) / static_cast<double>(coded_total), entropy_total,
                    static_cast<double>(raw_total) / static_cast<double>(entropy_total));
}

// The 12-bit files with garbage in bits 12-15 must stay in the manifest (so their coverage cannot
// silently vanish), really carry such bits, and round-trip exactly.
TEST(corpus, GarbageHighBitFilesRoundTrip)
{
    REQUIRE_CORPUS();
    const char *const wanted[] = {"dcm_qa_12bit/12bitUnsigned_0x0F0F.dcm",
                                  "dcm_qa_12bit/12bitSigned_0x0F0F.dcm"};
    for (const char *name : wanted) {
        SCOPED_TRACE(name);
        const std::string path = testdata_dir() + "/" + name;
        struct stat st;
        if (stat(path.c_str(), &st) != 0) {
            ADD_FAILURE() << path << " is missing from the shared corpus";
            continue;
        }
        const Frame *found = nullptr;
        for (const Frame &fr : manifest().frames)
            if (fr.source.size() >= std::strlen(name) &&
                fr.source.compare(fr.source.size() - std::strlen(name), std::string::npos, name) == 0)
                found = &fr;
        ASSERT_NE(found, nullptr) << name << " is not in the manifest " << manifest_path();
        EXPECT_EQ(found->desc.bits_allocated, 16u);
        EXPECT_EQ(found->desc.bits_stored, 12u);
        std::vector<unsigned char> samples;
        ASSERT_EQ(pcwt_corpus::load_raw(*found, &samples), "");
        const size_t garbage = garbage_high_bits(*found, samples);
        EXPECT_GT(garbage, 0u) << "expected samples with garbage above bit 11 in " << name;
        const RoundTrip r = round_trip(*found);
        EXPECT_EQ(r.error, "") << name;
        std::printf("[ corpus ] %s: %zu samples with garbage high bits, %u coded planes, %zu bytes\n",
                    name, garbage, r.info.plane_count, r.coded_bytes);
    }
}

} // namespace
