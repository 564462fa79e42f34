// save_frames.hpp - --save-frames: the words of every frame read, as DIR/NNNN.raw (little-endian,
// numbered from 0000 in report order), to check the readers against another toolkit.
#pragma once

#include <string>
#include <vector>

#include "image.hpp"

namespace pcwtbench {

bool save_frames(const std::vector<Image> &images, const std::string &dir, std::string &why);

} // namespace pcwtbench
