// machine_info.cpp - see machine_info.hpp.
#include "machine_info.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>

namespace pcwtbench {

std::string utc_timestamp()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

std::string host_name()
{
    char b[256] = {0};
    if (gethostname(b, sizeof b - 1) != 0)
        return "unknown";
    return b;
}

std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                size_t s = line.find_first_not_of(" \t", colon + 1);
                return s == std::string::npos ? "unknown" : line.substr(s);
            }
        }
    }
    return "unknown";
}

} // namespace pcwtbench
