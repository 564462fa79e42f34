// openjpeg_io.hpp - OpenJPEG 2.5 (JPEG 2000 Part 1, and HTJ2K decoding): lossless encoding with
// the reversible 5/3 wavelet, decoding codestreams (J2K or JP2) into samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "byte_buffer.hpp"
#include "image.hpp"

class DPJ2KImage; // plugin/libsrc/dpj2kcore.h

namespace pcwtbench {

std::string openjpeg_version();

// Wavelet decomposition levels used by the JPEG 2000 and HTJ2K adapters: 5 (OpenJPEG's and
// OpenJPH's default), fewer when the image is too small for that many.
uint32_t j2k_levels_for(const Image &img);

// A decoded JPEG 2000 frame: components of equal size, values as decoded (colour transform undone).
struct J2kFrame {
    uint32_t width = 0, height = 0;
    std::vector<uint32_t> precision;
    std::vector<bool> is_signed;
    std::vector<std::vector<int32_t>> planes;
};

// Decode a J2K codestream or a JP2 file (told apart by their signatures). Throws CodecError.
J2kFrame openjpeg_decode_frame(const uint8_t *data, size_t size);

// True when data starts like a J2K codestream or a JP2 file.
bool looks_like_j2k(const uint8_t *data, size_t size);

void openjpeg_encode_image(const Image &img, ByteBuffer &coded);
void openjpeg_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out);

// A decoded JPEG 2000 frame (OpenJPEG's, or libpcwt's JPEG 2000 decoder's through
// DPJ2KImageFromSamples) back into img's words (out: img.raw_bytes()), as the peer mapping gave
// them. Throws CodecError, naming the decoder, when its frame is not img's.
void words_from_j2k_image(const Image &img, const DPJ2KImage &image, ByteBuffer &out, const char *decoder);

} // namespace pcwtbench
