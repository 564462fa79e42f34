// file_bytes.hpp - whole-file reads and the first bytes of a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pcwtbench {

// Read a whole file; false (and why) when it cannot be read.
bool read_file_bytes(const std::string &path, std::vector<uint8_t> &bytes, std::string &why);
// Read up to n bytes from the start of a file (fewer when it is shorter); false when unreadable.
bool read_file_head(const std::string &path, size_t n, std::vector<uint8_t> &bytes, std::string &why);

} // namespace pcwtbench
