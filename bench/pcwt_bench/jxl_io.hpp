// jxl_io.hpp - libjxl 0.7 (JPEG XL): lossless encoding (modular, distance 0, the effort given) and
// decoding, one thread, through memory buffers.
//
// libjxl 0.7 takes and gives 8- or 16-bit integer buffers scaled to their full range and declares the
// sample precision in JxlBasicInfo.bits_per_sample (it has no call to say that a buffer holds
// BitsStored-bit values), so a b-bit value v goes in as round(v * 65535 / (2^b - 1)) and comes back
// through the inverse rounding; both are exact for b <= 16. Signed values go in offset by 2^(b-1)
// (JPEG XL codes unsigned samples; the offset keeps neighbouring values neighbours for its
// predictors, as JPEG 2000's signed samples do).
#pragma once

#include <string>

#include "byte_buffer.hpp"
#include "image.hpp"

namespace pcwtbench {

std::string jxl_version();

// effort: libjxl's 1 (fastest) .. 9 (smallest).
void jxl_encode_image(const Image &img, int effort, ByteBuffer &coded);
void jxl_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out);

} // namespace pcwtbench
