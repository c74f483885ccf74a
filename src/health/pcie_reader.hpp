// The PCIe links of every GPU (NVIDIA display/3D controllers) and every RDMA NIC under
// /sys/bus/pci/devices: trained speed and width against the most the link supports, and the
// AER counts (aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal) where the kernel has them.
#pragma once

#include <string>
#include <vector>

#include "health/records.hpp"
#include "health/tree.hpp"

namespace commsweep::health {

std::vector<PcieLink> read_pcie_links(const Tree& tree);

// One aer_dev_* file ("RxErr 0\nBadTLP 0\n...\nTOTAL_ERR_COR 0"): name -> count, and the
// TOTAL_ERR_* line in *total. False (with *problem) on a line that is not "NAME COUNT".
bool parse_aer(const std::string& text, std::map<std::string, std::uint64_t>* counts, std::uint64_t* total,
               std::string* problem);

}  // namespace commsweep::health
