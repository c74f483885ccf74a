// What travels with every result: versions, hosts, GPUs, NCCL_*/UCX_* settings, arguments.
#pragma once

#include <map>
#include <string>

#include "report/result.hpp"

namespace commsweep {

// NCCL_* and UCX_* variables of this process, minus anything that looks like a secret.
std::map<std::string, std::string> fabric_environment(char** envp);
bool looks_secret(const std::string& name);
// A value that is a credential whatever its variable is called: a PEM block, an
// Authorization header, a URL with a password, a known token format (GitHub, Slack, AWS, JWT,
// OpenAI-style sk-), or a long random-looking word (32+ characters of one base64 / hex run
// mixing upper case, lower case and digits, not a path).
bool looks_secret_value(const std::string& value);
std::string mpi_library_version();
std::string utc_now_iso8601();

}  // namespace commsweep
