// input_scan.hpp - from the PATH arguments to frames: walk directories, tell file kinds apart by
// their content, read each file with the matching reader, and name every frame uniquely.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "image.hpp"
#include "read_raw.hpp"

namespace pcwtbench {

// progress(done, total, path) is called after each file.
LoadedInputs load_inputs(const std::vector<std::string> &paths, const std::optional<RawFormat> &raw,
                         const std::function<void(size_t, size_t, const std::string &)> &progress);

} // namespace pcwtbench
