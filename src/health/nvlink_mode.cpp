#include "health/nvlink_mode.hpp"

#include <cstdio>

namespace commsweep::health {
namespace {

// The models and their NVLinks, as NVIDIA publishes them. Per link and direction every
// generation from 2.0 to 4.0 carries 25 GB/s (50 GB/s both ways) and 5.0 twice that:
//   - NVIDIA, "NVLink and NVSwitch" (nvidia.com/en-us/data-center/nvlink/): "a single NVIDIA
//     A100 Tensor Core GPU supports up to 12 third-generation NVLink connections for up to
//     600 GB/s"; Hopper: 18 fourth-generation links, 900 GB/s per GPU; Blackwell: 18
//     fifth-generation links, 1.8 TB/s per GPU. NVLink on A100 is "also available in A100 PCIe
//     two-GPU configurations" (a bridge).
//   - NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), "Third-Generation NVLink":
//     12 links, 25 GB/s per direction each.
//   - NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), "Fourth-Generation NVLink":
//     18 links on H100 SXM5, 900 GB/s; NVIDIA H100 PCIe product brief PB-11133-001_v02 (Nov
//     2022): an NVLink bridge joins two cards at 600 GB/s (12 links); the H100 NVL datasheet
//     (2023): 600 GB/s over its bridges, likewise.
//   - NVIDIA H200 Tensor Core GPU datasheet (2024): H200 SXM 900 GB/s NVLink; H200 NVL "2- or
//     4-way NVIDIA NVLink bridge: 900 GB/s per GPU".
//   - NVIDIA DGX B200 / HGX B200 datasheets (2024): 1.8 TB/s NVLink per GPU, fifth generation.
// NVML names them ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA
// H100 PCIe", "NVIDIA H100 NVL", "NVIDIA B200"); the first row whose key the name contains
// wins, so the bridged PCIe boards come before their SXM namesakes.
struct Row {
  const char* key;
  NvLinkModel model;
};
constexpr Row kModels[] = {
    {"H100 PCIe", {"H100 PCIe", 12, 6, 25, true}},
    {"H100 NVL", {"H100 NVL", 12, 6, 25, true}},
    {"H200 NVL", {"H200 NVL", 18, 6, 25, true}},
    {"A100-PCIE", {"A100 PCIe", 12, 4, 25, true}},
    {"A100 80GB PCIe", {"A100 PCIe", 12, 4, 25, true}},
    {"A100-SXM4", {"A100 SXM4", 12, 4, 25, false}},
    {"A100 SXM4", {"A100 SXM4", 12, 4, 25, false}},
    {"H100", {"H100 SXM", 18, 6, 25, false}},  // "NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 ..."
    {"GH200", {"GH200", 18, 6, 25, false}},  // before "H200", which its name contains
    {"H200", {"H200 SXM", 18, 6, 25, false}},
    {"B200", {"B200", 18, 7, 50, false}},
};

// nvmlNvlinkVersion_t (nvml.h: NVML_NVLINK_VERSION_1_0 = 1 ... 5_0 = 7; an A100 answers 4 or
// 5, hwloc issue 658) and the version it names.
constexpr const char* kVersionNames[] = {"?", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0"};

// A common speed below this share of the model's published rate is a link that trained to a
// slower rate (a lower line rate halves it or more). NVML's field reports the links' speed,
// which may sit a little above the published data rate; the lent H200 (a pass-through VM)
// has no NVLink, so no healthy figure was read: docs/nvlink.md says so.
constexpr double kSpeedFloor = 0.75;

// "25", "12.5": whole figures without decimals.
std::string gbps_text(double gbps) {
  char text[32];
  std::snprintf(text, sizeof text, gbps == static_cast<double>(static_cast<long>(gbps)) ? "%.0f" : "%.1f", gbps);
  return text;
}

}  // namespace

const NvLinkModel* nvlink_model_of(const std::string& nvml_name) {
  for (const Row& r : kModels)
    if (nvml_name.find(r.key) != std::string::npos) return &r.model;
  return nullptr;
}

std::string nvlink_version_name(int nvml_version) {
  constexpr int n = static_cast<int>(sizeof kVersionNames / sizeof kVersionNames[0]);
  return nvml_version > 0 && nvml_version < n ? kVersionNames[nvml_version] : "?";
}

NvLinkMode nvlink_mode(const std::string& name, int active, int present, int version,
                       std::optional<unsigned> speed_mbps) {
  NvLinkMode m;
  m.name = name;
  m.model = nvlink_model_of(name);
  m.active = active;
  m.present = present;
  m.version = version;
  m.speed_mbps = speed_mbps;
  // No link NVML could read (a board without NVLink, a pass-through VM that hides them): no mode
  // to judge; the snapshot's unread says why.
  if (!m.model || present == 0) return m;
  const NvLinkModel& x = *m.model;
  const std::string own = std::string(x.model) + " has " + std::to_string(x.links) + " at NVLink " +
                          nvlink_version_name(x.nvml_version);
  if (!x.bridged && active < x.links) {
    m.reduced = true;
    m.why = std::to_string(active) + " of " + std::to_string(x.links) + " links active (" + own + ")";
  } else if (active > 0 && version > 0 && version < x.nvml_version) {
    m.reduced = true;
    m.why = "links at NVLink " + nvlink_version_name(version) + " (" + own + ")";
  } else if (active > 0 && speed_mbps && *speed_mbps < kSpeedFloor * x.gbps * 1000) {
    m.reduced = true;
    m.why = "links at " + gbps_text(*speed_mbps / 1000.0) + " GB/s each (" + x.model + ": " + gbps_text(x.gbps) + ")";
  }
  return m;
}

NvLinkMode nvlink_mode(const GpuHealth& g) {
  int active = 0;
  for (const auto& l : g.nvlinks) active += l.active ? 1 : 0;
  const int present = g.nvlink_link_count ? static_cast<int>(*g.nvlink_link_count) : static_cast<int>(g.nvlinks.size());
  return nvlink_mode(g.name, active, present, static_cast<int>(g.nvlink_version.value_or(0)), g.nvlink_speed_mbps);
}

std::string NvLinkMode::text() const {
  if (active == 0 && (present == 0 || !model)) return "no NVLink";
  if (reduced) return "reduced: " + why;
  const std::string at = version > 0 ? " at NVLink " + nvlink_version_name(version) : "";
  if (!model)
    return std::to_string(active) + " of " + std::to_string(present) + " links active" + at + " (no NVLink table entry for " +
           name + ")";
  // The published rate per link and direction; NVML's own speed, where read, is in the JSON.
  const std::string each = ", " + gbps_text(model->gbps) + " GB/s each";
  if (model->bridged)
    return std::to_string(active) + " of up to " + std::to_string(model->links) + " links" + at + each +
           " (bridged: as many as are fitted)";
  return std::to_string(active) + " of " + std::to_string(model->links) + " links" + at + each;
}

}  // namespace commsweep::health
