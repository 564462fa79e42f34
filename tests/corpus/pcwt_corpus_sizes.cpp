// pcwt_corpus_sizes: encodes every frame of a corpus manifest (tests/corpus/export_corpus.py) with the
// given parameters in the baseline profile (the one the model describes) and prints, per frame,
// the codestream size. Used by tests/corpus/wg04_ratio.py.
//
// usage: pcwt_corpus_sizes MANIFEST LEVELS GROUP_ROWS GROUP_COLS [MIN_LL]
// output: '#' header, then one tab-separated line per frame:
//   raw  source  raw_bytes  coded_bytes  header_bytes  levels_applied  plane_count  exact
// where exact is 1 when the decoded frame equals the input. Exit status 1 on any failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "corpus_manifest.hpp"
#include "pcwt.h"

namespace {

bool parse_arg(const char *text, uint32_t *value)
{
    return pcwt_corpus::parse_u32(text, value);
}

} // namespace

int main(int argc, char **argv)
{
    uint32_t levels = 0, group_rows = 0, group_cols = 0, min_ll = PCWT_DEFAULT_MIN_LL;
    if ((argc != 5 && argc != 6) || !parse_arg(argv[2], &levels) || !parse_arg(argv[3], &group_rows) ||
        !parse_arg(argv[4], &group_cols) || (argc == 6 && !parse_arg(argv[5], &min_ll))) {
        std::fprintf(stderr, "usage: pcwt_corpus_sizes MANIFEST LEVELS GROUP_ROWS GROUP_COLS [MIN_LL]\n");
        return 2;
    }
    const pcwt_corpus::Manifest m = pcwt_corpus::load_manifest(argv[1]);
    if (!m.found) {
        std::fprintf(stderr, "pcwt_corpus_sizes: cannot read %s\n", argv[1]);
        return 1;
    }
    if (!m.error.empty()) {
        std::fprintf(stderr, "pcwt_corpus_sizes: %s\n", m.error.c_str());
        return 1;
    }
    pcwt_encoder *enc = pcwt_encoder_create();
    pcwt_decoder *dec = pcwt_decoder_create();
    if (enc == nullptr || dec == nullptr) {
        std::fprintf(stderr, "pcwt_corpus_sizes: out of memory\n");
        return 1;
    }
    pcwt_encode_params params;
    pcwt_encode_params_default(&params);
    params.profile = PCWT_PROFILE_BASELINE;
    params.levels = levels;
    params.group_rows = group_rows;
    params.group_cols = group_cols;
    params.min_ll = min_ll;
    params.backend = PCWT_BACKEND_CPU;
    pcwt_status st = pcwt_encoder_set_params(enc, &params);
    if (st == PCWT_OK)
        st = pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU);
    if (st != PCWT_OK) {
        std::fprintf(stderr, "pcwt_corpus_sizes: parameters refused: %s (%s)\n", pcwt_status_string(st),
                     pcwt_encoder_last_error(enc));
        pcwt_encoder_destroy(enc);
        pcwt_decoder_destroy(dec);
        return 1;
    }
    int rc = 0;
    std::printf("#raw\tsource\traw_bytes\tcoded_bytes\theader_bytes\tlevels\tplanes\texact\n");
    for (const pcwt_corpus::Frame &fr : m.frames) {
        std::vector<unsigned char> samples;
        const std::string err = pcwt_corpus::load_raw(fr, &samples);
        if (!err.empty()) {
            std::fprintf(stderr, "%s: %s\n", fr.name().c_str(), err.c_str());
            rc = 1;
            continue;
        }
        std::vector<unsigned char> coded(pcwt_encode_bound(&fr.desc));
        size_t written = 0;
        st = pcwt_encode(enc, &fr.desc, samples.data(), samples.size(), coded.data(), coded.size(),
                         &written);
        pcwt_header_info info;
        std::memset(&info, 0, sizeof info);
        if (st == PCWT_OK)
            st = pcwt_read_header(coded.data(), written, &info);
        if (st != PCWT_OK) {
            std::fprintf(stderr, "%s: %s (%s)\n", fr.name().c_str(), pcwt_status_string(st),
                         pcwt_encoder_last_error(enc));
            rc = 1;
            continue;
        }
        std::vector<unsigned char> out(samples.size());
        st = pcwt_decode(dec, coded.data(), written, out.data(), out.size());
        const bool exact = st == PCWT_OK && out == samples;
        if (!exact)
            rc = 1;
        std::printf("%s\t%s\t%zu\t%zu\t%zu\t%u\t%u\t%d\n", fr.raw_rel.c_str(), fr.source.c_str(),
                    samples.size(), written, info.header_length, info.levels, info.plane_count,
                    exact ? 1 : 0);
    }
    pcwt_encoder_destroy(enc);
    pcwt_decoder_destroy(dec);
    return rc;
}
