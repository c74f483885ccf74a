#include "cli/provenance.hpp"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>

namespace commsweep {

// A name is secret-looking when one of its '_'-separated words is: UCX_API_KEY is dropped,
// NCCL_IB_PKEY (an InfiniBand partition key, a fabric setting) is kept.
bool looks_secret(const std::string& name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static const std::set<std::string> kSecretWords{
      "KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS",
      "CREDENTIAL", "CREDENTIALS", "AUTH", "PRIVATE", "CERT", "SIGNATURE"};
  std::size_t start = 0;
  while (start <= upper.size()) {
    const std::size_t end = std::min(upper.find('_', start), upper.size());
    if (kSecretWords.count(upper.substr(start, end - start)) > 0) return true;
    start = end + 1;
  }
  return false;
}

std::map<std::string, std::string> fabric_environment(char** envp) {
  std::map<std::string, std::string> env;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.rfind("NCCL_", 0) != 0 && name.rfind("UCX_", 0) != 0) continue;
    if (looks_secret(name)) continue;
    env[name] = entry.substr(eq + 1);
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
