#include "nvlink/expectation.hpp"

#include <algorithm>

#include "health/nvlink_mode.hpp"

namespace commsweep::nvlink {
namespace {

// nvmlNvlinkVersion_t (nvml.h: NVML_NVLINK_VERSION_1_0 = 1 ... 5_0 = 7; the function returns the
// enum, not the version: an A100 answers 5, hwloc issue 658) and GB/s per link per direction:
// 1.0 (P100) 20; 2.x (V100) 25; 3.x (A100: 12 links, 600 GB/s both ways) 25; 4.0 (H100/H200:
// 18 links, 900 GB/s both ways, NVIDIA's H100 datasheet) 25; 5.0 (B200: 18 links, 1.8 TB/s) 50.
// The version's name is health/nvlink_mode's, which the GPU models' table shares.
struct Version {
  int nvml;
  double gbps;
};
constexpr Version kVersions[] = {{1, 20}, {2, 25}, {3, 25}, {4, 25}, {5, 25}, {6, 25}, {7, 50}};

const Version* find(int nvml_version) {
  for (const Version& v : kVersions) {
    if (v.nvml == nvml_version) return &v;
  }
  return nullptr;
}

std::optional<double> per_direction(const Gpu& g) {
  const auto rate = link_gbps(g.nvlink_version);
  if (!rate || g.nvlinks_active <= 0) return std::nullopt;
  return *rate * g.nvlinks_active;
}

}  // namespace

std::optional<double> link_gbps(int nvml_version) {
  const Version* v = find(nvml_version);
  return v ? std::optional<double>(v->gbps) : std::nullopt;
}

std::string version_text(int nvml_version) { return health::nvlink_version_name(nvml_version); }

health::NvLinkMode mode_of(const Gpu& g) {
  return health::nvlink_mode(g.name, g.nvlinks_active, g.nvlinks_present > 0 ? g.nvlinks_present : static_cast<int>(g.before.size()),
                             g.nvlink_version, g.nvlink_speed_mbps);
}

std::optional<double> expected_gbps(const Gpu& src, const Gpu& dst) {
  const auto a = per_direction(src), b = per_direction(dst);
  if (!a || !b) return std::nullopt;
  return std::min(*a, *b);
}

std::optional<double> expected_gbps(const Gpu& src, const Gpu& dst, Metric metric) {
  const auto one = expected_gbps(src, dst);
  if (!one) return std::nullopt;
  return bidirectional(metric) ? 2 * *one : *one;
}

std::optional<double> expected_gbps(const Gpu& g) { return per_direction(g); }

}  // namespace commsweep::nvlink
