// The rate the topology promises a GPU pair: NVML's active NVLink count and version per GPU
// times the version's rate per link and direction. On an NVSwitch node (HGX H100/H200: every
// GPU's links go to the switches) a pair's traffic spreads over all links, so a pair gets the
// smaller of the two GPUs' counts times the rate; where GPUs are linked directly, the figure is
// an upper bound and the node median judges.
#pragma once

#include <optional>
#include <string>

#include "health/nvlink_mode.hpp"
#include "nvlink/record.hpp"

namespace commsweep::nvlink {

// GB/s per link and direction of nvmlNvlinkVersion_t VERSION (NVML's enum, not the marketing
// number: 6 is NVLink 4.0); nullopt for an unknown version.
std::optional<double> link_gbps(int nvml_version);
// "4.0" for 6; "?" for an unknown version.
std::string version_text(int nvml_version);

// G's NVLink mode against its model's (health/nvlink_mode.hpp): what the legend says of it, and
// a trained-down GPU's finding.
health::NvLinkMode mode_of(const Gpu& g);

// The raw rate from SRC to DST, one direction (both directions at once: twice this); nullopt
// when a GPU's links were not read.
std::optional<double> expected_gbps(const Gpu& src, const Gpu& dst);
// What METRIC of a pair is held to: one direction's rate, or both directions' for bidir.
std::optional<double> expected_gbps(const Gpu& src, const Gpu& dst, Metric metric);
// All-to-one into GPU G (or one-to-all out of it): G's own links, one direction.
std::optional<double> expected_gbps(const Gpu& g);

}  // namespace commsweep::nvlink
