// openjph_io.hpp - OpenJPH 0.9 (HTJ2K, JPEG 2000 Part 15): lossless encoding (reversible 5/3,
// 64x64 code blocks, RCT for RGB) and decoding, through memory files.
#pragma once

#include <string>

#include "byte_buffer.hpp"
#include "image.hpp"

namespace pcwtbench {

std::string openjph_version();

void openjph_encode_image(const Image &img, ByteBuffer &coded);
void openjph_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out);

} // namespace pcwtbench
