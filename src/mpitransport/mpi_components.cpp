#include "mpitransport/mpi_components.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace commsweep::mpitransport {
namespace {

void add_unique(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

// What a btl carries, in words a user knows.
std::string btl_words(const std::string& btl) {
  if (btl == "vader" || btl == "sm") return "shared memory";
  if (btl == "tcp") return "TCP";
  if (btl == "openib") return "InfiniBand verbs";
  if (btl == "uct") return "UCX (uct)";
  if (btl == "ofi") return "libfabric";
  if (btl == "smcuda") return "shared memory, CUDA-aware";
  return "";
}

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : separator) + p;
  return text;
}

}  // namespace

Components components_in_maps(const std::string& maps) {
  Components c;
  std::istringstream lines(maps);
  for (std::string line; std::getline(lines, line);) {
    const auto slash = line.rfind('/');
    const std::string file = slash == std::string::npos ? line : line.substr(slash + 1);
    for (auto [prefix, list] : {std::pair<const char*, std::vector<std::string>*>{"mca_pml_", &c.pml},
                                {"mca_btl_", &c.btl}, {"mca_mtl_", &c.mtl}}) {
      const std::string p(prefix);
      if (file.rfind(p, 0) != 0 || file.size() <= p.size() + 3 || file.compare(file.size() - 3, 3, ".so") != 0) continue;
      add_unique(*list, file.substr(p.size(), file.size() - p.size() - 3));
    }
  }
  return c;
}

std::string describe(const Components& c) {
  if (c.pml.empty()) return "";
  // "monitoring" wraps the real pml; the real one is the other.
  std::vector<std::string> pml;
  for (const auto& p : c.pml) {
    if (p != "monitoring") pml.push_back(p);
  }
  const std::string chosen = pml.empty() ? c.pml.front() : joined(pml, "+");
  if (chosen == "ucx") return "transport: UCX (Open MPI pml ucx; UCX_TLS chooses shared memory, RDMA or TCP)";
  if (chosen == "cm") {
    return "transport: Open MPI pml cm" + (c.mtl.empty() ? std::string() : " with mtl " + joined(c.mtl, ", "));
  }
  std::vector<std::string> within, between, other;
  for (const auto& b : c.btl) {
    if (b == "self") continue;  // a rank to itself
    const std::string words = btl_words(b);
    const std::string named = words.empty() ? b : b + " (" + words + ")";
    if (b == "vader" || b == "sm" || b == "smcuda") {
      within.push_back(named);
    } else {
      between.push_back(named);
    }
  }
  // vader is also loaded under its old name sm (an alias): say it once.
  if (std::find_if(within.begin(), within.end(), [](const std::string& s) { return s.rfind("vader", 0) == 0; }) !=
      within.end()) {
    within.erase(std::remove_if(within.begin(), within.end(), [](const std::string& s) { return s.rfind("sm ", 0) == 0; }),
                 within.end());
  }
  std::string text = "transport: Open MPI pml " + chosen;
  if (!within.empty()) text += ", " + joined(within, ", ") + " within a host";
  if (!between.empty()) text += ", " + joined(between, ", ") + " between hosts";
  return text;
}

std::string this_process_transport() {
  std::ifstream in("/proc/self/maps");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string words = describe(components_in_maps(text.str()));
  return words.empty() ? "" : words + " (the Open MPI components loaded after MPI_Init)";
}

}  // namespace commsweep::mpitransport
