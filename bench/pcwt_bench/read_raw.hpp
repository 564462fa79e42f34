// read_raw.hpp - headerless raw sample files and binary PGM/PPM (P5/P6) images.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "image.hpp"

namespace pcwtbench {

// Geometry of raw files, from --raw WxHxBITS[s][xC[p]] (e.g. 512x512x12s, 640x480x8x3,
// 256x256x16x3p): BITS is BitsStored (1..16; words of 8 bits up to 8, else 16), "s" signed,
// C components (1 or 3), "p" planar. Samples are little-endian unless big_endian.
struct RawFormat {
    uint32_t width = 0, height = 0, bits = 0, components = 1;
    bool is_signed = false, planar = false, big_endian = false;
};

// Parse a --raw value; nullopt when malformed.
std::optional<RawFormat> parse_raw_format(const std::string &spec);

// A raw file holds one frame or several of the same size one after the other.
void read_raw_file(const std::string &path, const std::string &name, const RawFormat &fmt, LoadedInputs &out);

// Binary PGM (P5, grey) or PPM (P6, RGB); maxval above 255 means big-endian 16-bit samples.
void read_pnm_file(const std::string &path, const std::string &name, LoadedInputs &out);

} // namespace pcwtbench
