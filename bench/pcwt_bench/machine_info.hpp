// machine_info.hpp - the circumstances of a run: date, host, CPU model.
#pragma once

#include <string>

namespace pcwtbench {

std::string utc_timestamp();   // "2025-01-31T12:34:56Z"
std::string host_name();
std::string cpu_model();       // "model name" of /proc/cpuinfo, "unknown" elsewhere

} // namespace pcwtbench
