#include "nvlink/expectation.hpp"

#include <algorithm>

namespace commsweep::nvlink {
namespace {

// nvmlNvlinkVersion_t (nvml.h: NVML_NVLINK_VERSION_1_0 = 1 ... 5_0 = 7; the function returns the
// enum, not the version: an A100 answers 5, hwloc issue 658) and GB/s per link per direction:
// 1.0 (P100) 20; 2.x (V100) 25; 3.x (A100: 12 links, 600 GB/s both ways) 25; 4.0 (H100/H200:
// 18 links, 900 GB/s both ways, NVIDIA's H100 datasheet) 25; 5.0 (B200: 18 links, 1.8 TB/s) 50.
struct Version {
  int nvml;
  const char* text;
  double gbps;
};
constexpr Version kVersions[] = {{1, "1.0", 20}, {2, "2.0", 25}, {3, "2.2", 25}, {4, "3.0", 25},
                                 {5, "3.1", 25}, {6, "4.0", 25}, {7, "5.0", 50}};

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

std::string version_text(int nvml_version) {
  const Version* v = find(nvml_version);
  return v ? v->text : "?";
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
