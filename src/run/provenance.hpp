// What travels with every result: versions, hosts, GPUs, NCCL_*/UCX_* settings, arguments.
#pragma once

#include <map>
#include <string>

#include "report/result.hpp"

namespace commsweep {

// NCCL_* and UCX_* variables of this process, minus anything that looks like a secret.
std::map<std::string, std::string> fabric_environment(char** envp);
std::string mpi_library_version();
std::string utc_now_iso8601();

}  // namespace commsweep
