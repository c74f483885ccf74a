// One GPU's NVLinks as NVML sees them (health/gpu_reader's counters, any NvmlApi: the real
// library loaded at run time, or the tests' recorded one), found by its PCI bus id: the active
// count and version the expectation needs, and the error counters joined to slow pairs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "health/nvml_api.hpp"
#include "health/records.hpp"

namespace commsweep::nvlink {

struct LinkReading {
  int active = 0;
  int version = 0;  // nvmlNvlinkVersion_t of the first active link; 0 unread
  int present = 0;  // the links the device has (NVML field 91), else those read
  std::optional<unsigned> speed_mbps;  // the active links' common speed (field 90)
  std::vector<health::NvLink> links;
  std::string note;  // why nothing was read ("" when read)
};

// CUDA's "0000:18:00.0" and NVML's "00000000:18:00.0" name the same GPU.
bool same_bus_id(const std::string& a, const std::string& b);
LinkReading read_gpu_links(health::NvmlApi& nvml, const std::string& pci_bus_id);

}  // namespace commsweep::nvlink
