// roundtrip_check.hpp - comparing a decoded frame with the original, word by word.
#pragma once

#include <string>

#include "byte_buffer.hpp"
#include "image.hpp"

namespace pcwtbench {

// True when decoded holds exactly img's words; otherwise detail says where and how many differ.
bool same_words(const Image &img, const ByteBuffer &decoded, std::string &detail);

} // namespace pcwtbench
