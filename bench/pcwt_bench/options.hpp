// options.hpp - the command line of pcwt-bench.
#pragma once

#include <pcwt.h>

#include <optional>
#include <string>
#include <vector>

#include "read_raw.hpp"

namespace pcwtbench {

// The PCWT codecs' parameters (--levels, --group, --lifting; 0 / AUTO: libpcwt's defaults).
struct PcwtSettings {
    bool levels_set = false; // --levels given; otherwise libpcwt's default
    unsigned levels = 0;
    unsigned group_rows = 0, group_cols = 0; // 0x0: the profile's group size
    pcwt_lifting_order lifting = PCWT_LIFTING_AUTO;
    pcwt_level1_filter level1 = PCWT_LEVEL1_AUTO; // --level1-filter (entropy and compact profiles)
    int offset = -1; // --offset (compact profile): a pcwt_offset_mode, -1: libpcwt's default
    int second_bit = -1; // --second-bit (entropy and compact): a pcwt_second_bit, -1: libpcwt's default
};

// The peers' settings.
struct PeerSettings {
    int jxl_effort = 7; // --jxl-effort: libjxl's effort, 1-9
};

struct Options {
    std::vector<std::string> paths;
    bool wg04 = false;                 // add the WG04 set (wg04_inputs())
    std::string prefix = "pcwt-bench"; // outputs PREFIX.md, PREFIX.csv, PREFIX.json, PREFIX.html
    std::string md, csv, json, html;   // explicit file names (override PREFIX), "none" to skip
    unsigned repeats = 5;              // timed runs (median reported)
    unsigned warmup = 1;               // untimed runs first
    unsigned threads = 0;              // all-threads measurement (0: hardware threads)
    bool parallel = true;              // run the all-threads / batch measurement
    std::vector<std::string> codecs;   // empty: all available
    std::string gpu = "auto";          // auto, on, off
    PcwtSettings pcwt;
    PeerSettings peers;
    std::optional<RawFormat> raw;
    std::string title = "PCWT lossless codec comparison";
    bool thumbnails = true;
    bool progress = true;
    std::string inject_mismatch;       // testing: corrupt one decoded sample of this codec
    std::string save_frames;           // write each frame's words as DIR/NNNN.raw (little-endian)
    std::string command_line;
};

// The WG04 set: every JPEG-LS codestream of <shared>/testdata/wg04/jls and the native DICOM
// wg04/dicom_unc/MR1_UNC.dcm (MR1 has no JPEG-LS copy); the codestreams take their sign from the
// identical DICOM originals in wg04/dicom_unc (read_codestream.hpp). Empty with why when absent.
std::vector<std::string> wg04_inputs(std::string &why);

enum class ParseOutcome { Run, ExitSuccess, ExitUsage };

// Parse argv into opt; prints help/version/errors itself.
ParseOutcome parse_options(int argc, char **argv, Options &opt);

} // namespace pcwtbench
