// file_bytes.hpp - whole-file reads and the first bytes of a file; an input file's bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "image.hpp"

namespace pcwtbench {

// Read a whole file; false (and why) when it cannot be read.
bool read_file_bytes(const std::string &path, std::vector<uint8_t> &bytes, std::string &why);
// Read up to n bytes from the start of a file (fewer when it is shorter); false when unreadable.
bool read_file_head(const std::string &path, size_t n, std::vector<uint8_t> &bytes, std::string &why);
// Read a whole input file; false, with an "unreadable: why" problem for name in out, when it
// cannot be read.
bool read_input_bytes(const std::string &path, const std::string &name, LoadedInputs &out,
                      std::vector<uint8_t> &bytes);

} // namespace pcwtbench
