#include "run/provenance.hpp"

#include <mpi.h>

#include <ctime>

#include "core/secrets.hpp"

namespace commsweep {

std::map<std::string, std::string> fabric_environment(char** envp) {
  std::map<std::string, std::string> env;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.rfind("NCCL_", 0) != 0 && name.rfind("UCX_", 0) != 0) continue;
    const std::string value = entry.substr(eq + 1);
    if (looks_secret_setting(name, value)) continue;
    env[name] = value;
  }
  return env;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string v(text, static_cast<std::size_t>(length));
  const auto cut = v.find_first_of(",\n");
  if (cut != std::string::npos) v.resize(cut);
  return v;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace commsweep
