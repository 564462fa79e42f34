// charls_io.hpp - CharLS 2.4.1 (JPEG-LS): decoding codestreams into samples, and the JPEG-LS
// adapter shared by the CharLS codec and the PCWT JPEG-LS codec (whose streams CharLS decodes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "byte_buffer.hpp"
#include "image.hpp"

namespace pcwtbench {

std::string charls_version();

// A decoded JPEG-LS frame: 8-bit samples for bits <= 8, else host-order 16-bit; planar when the
// stream has interleave mode none and several components, else pixel-interleaved.
struct JlsFrame {
    uint32_t width = 0, height = 0, components = 0, bits = 0;
    bool planar = false;
    std::vector<uint8_t> samples;
};

// Decode a whole JPEG-LS codestream. Throws CodecError.
JlsFrame charls_decode_frame(const uint8_t *data, size_t size);

// The JPEG-LS interleave mode for img: none (planes) for planar images, sample otherwise.
int jls_interleave_for(const Image &img);

// Encode img with CharLS (lossless, default coding parameters) as img.peer says.
void charls_encode_image(const Image &img, ByteBuffer &coded);

// Decode a JPEG-LS stream of img back into img's words (geometry checked). Throws CodecError.
void charls_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out);

} // namespace pcwtbench
