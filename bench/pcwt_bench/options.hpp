// options.hpp - the command line of pcwt-bench.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "read_raw.hpp"

namespace pcwtbench {

struct Options {
    std::vector<std::string> paths;
    std::string prefix = "pcwt-bench"; // outputs PREFIX.csv, PREFIX.json, PREFIX.html
    std::string csv, json, html;       // explicit file names (override PREFIX), "none" to skip
    unsigned repeats = 5;              // timed runs (median reported)
    unsigned warmup = 1;               // untimed runs first
    unsigned threads = 0;              // all-threads measurement (0: hardware threads)
    bool parallel = true;              // run the all-threads / batch measurement
    std::vector<std::string> codecs;   // empty: all available
    std::string gpu = "auto";          // auto, on, off
    std::optional<RawFormat> raw;
    std::string title = "PCWT lossless codec comparison";
    bool thumbnails = true;
    bool progress = true;
    std::string inject_mismatch;       // testing: corrupt one decoded sample of this codec
    std::string save_frames;           // write each frame's words as DIR/NNNN.raw (little-endian)
    std::string command_line;
};

enum class ParseOutcome { Run, ExitSuccess, ExitUsage };

// Parse argv into opt; prints help/version/errors itself.
ParseOutcome parse_options(int argc, char **argv, Options &opt);

} // namespace pcwtbench
