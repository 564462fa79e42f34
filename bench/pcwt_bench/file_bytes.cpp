// file_bytes.cpp - see file_bytes.hpp.
#include "file_bytes.hpp"

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <memory>

namespace pcwtbench {

namespace {

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};

bool read_up_to(const std::string &path, size_t limit, bool whole, std::vector<uint8_t> &bytes, std::string &why)
{
    bytes.clear();
    std::FILE *raw = std::fopen(path.c_str(), "rb");
    if (!raw) {
        why = std::strerror(errno);
        return false;
    }
    std::unique_ptr<std::FILE, FileCloser> f(raw);
    uint8_t buf[1 << 16];
    for (;;) {
        size_t want = sizeof buf;
        if (!whole)
            want = std::min(want, limit - bytes.size());
        if (want == 0)
            break;
        const size_t got = std::fread(buf, 1, want, f.get());
        bytes.insert(bytes.end(), buf, buf + got);
        if (got < want) {
            if (std::ferror(f.get())) {
                why = "read error";
                return false;
            }
            break;
        }
    }
    return true;
}

} // namespace

bool read_file_bytes(const std::string &path, std::vector<uint8_t> &bytes, std::string &why)
{
    return read_up_to(path, 0, true, bytes, why);
}

bool read_file_head(const std::string &path, size_t n, std::vector<uint8_t> &bytes, std::string &why)
{
    return read_up_to(path, n, false, bytes, why);
}

bool read_input_bytes(const std::string &path, const std::string &name, LoadedInputs &out,
                      std::vector<uint8_t> &bytes)
{
    std::string why;
    if (read_file_bytes(path, bytes, why))
        return true;
    out.problems.push_back({name, path, "unreadable: " + why});
    return false;
}

} // namespace pcwtbench
