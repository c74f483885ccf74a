#include "nvlink/gpu_links.hpp"

#include <cctype>

#include "health/gpu_reader.hpp"

namespace commsweep::nvlink {
namespace {

// "00000000:18:00.0" -> {0, "18:00.0"} in lower case: the domain as a number, the rest as text.
std::pair<unsigned long, std::string> parts(const std::string& id) {
  const std::size_t colon = id.find(':');
  if (colon == std::string::npos) return {0, id};
  std::string rest = id.substr(colon + 1);
  for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {std::stoul(id.substr(0, colon), nullptr, 16), rest};
}

}  // namespace

bool same_bus_id(const std::string& a, const std::string& b) {
  try {
    return parts(a) == parts(b);
  } catch (const std::exception&) {
    return a == b;
  }
}

LinkReading read_gpu_links(health::NvmlApi& nvml, const std::string& pci_bus_id) {
  LinkReading r;
  if (!nvml.unavailable().empty()) {
    r.note = nvml.unavailable();
    return r;
  }
  unsigned count = 0;
  nvml.device_count(&count);
  for (unsigned i = 0; i < count; ++i) {
    std::string id;
    if (nvml.pci_bus_id(i, &id) != health::nvml_rc::kSuccess || !same_bus_id(id, pci_bus_id)) continue;
    std::vector<std::string> unread;
    health::GpuHealth g;
    g.nvlinks = health::read_nvlinks(nvml, i, &unread);
    health::read_nvlink_mode(nvml, i, &g);
    for (const auto& l : g.nvlinks) r.active += l.active ? 1 : 0;
    r.version = static_cast<int>(g.nvlink_version.value_or(0));
    r.speed_mbps = g.nvlink_speed_mbps;
    r.present = g.nvlink_link_count ? static_cast<int>(*g.nvlink_link_count) : static_cast<int>(g.nvlinks.size());
    r.links = std::move(g.nvlinks);
    if (r.links.empty()) r.note = unread.empty() ? "no NVLink" : unread.front();
    return r;
  }
  r.note = "NVML has no GPU " + pci_bus_id;
  return r;
}

}  // namespace commsweep::nvlink
