// thumbnail.hpp - a small JPEG of a frame for the report, windowed to the frame's own range of
// values (MONOCHROME1 shown inverted), encoded with libjpeg-turbo's TurboJPEG API and returned
// as a data: URI.
#pragma once

#include <string>

#include "image.hpp"

namespace pcwtbench {

// "data:image/jpeg;base64,..." of at most max_side pixels a side, or "" when it cannot be made.
std::string thumbnail_data_uri(const Image &img, unsigned max_side);

std::string base64_encode(const unsigned char *data, size_t size);

} // namespace pcwtbench
