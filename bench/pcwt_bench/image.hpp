// image.hpp - one frame to benchmark, and an input that gave none.
#pragma once

#include <pcwt.h>

#include <cstdint>
#include <string>
#include <vector>

#include "peer_mapping.hpp"

namespace pcwtbench {

// Samples in libpcwt's layout (host-order words of bits_allocated bits, planar or interleaved as
// desc.planar says), with what is known about where they came from.
struct Image {
    std::string name;         // unique display name: path as given / relative to a directory
                              // argument, "#N" (1-based) appended for frames of multi-frame files
    std::string path;         // the file it was read from
    uint32_t frame = 0;       // 0-based frame number in that file
    uint32_t frame_count = 1; // frames in that file
    std::string modality;     // DICOM Modality, or taken from the file name; "?" when unknown
    std::string photometric;  // DICOM Photometric Interpretation, "" when unknown
    std::string source;       // how it was read, e.g. "DICOM JPEG-LS Lossless (CharLS)"
    std::string note;         // anything else worth showing
    pcwt_image_desc desc{};
    std::vector<uint8_t> samples;
    PeerMapping peer;         // how JPEG-LS / JPEG 2000 / HTJ2K are given it (set after loading)

    size_t raw_bytes() const { return samples.size(); }
};

// A file that gave no image: unreadable, corrupted, or of a kind the benchmark does not handle.
struct InputProblem {
    std::string name;
    std::string path;
    std::string status; // "unreadable: why" or "unsupported: why"
};

struct LoadedInputs {
    std::vector<Image> images;
    std::vector<InputProblem> problems;
    size_t ignored_files = 0; // files met while walking directories that are no image kind we know
};

} // namespace pcwtbench
