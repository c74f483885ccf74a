// The GPUs through NVML (any NvmlApi): one GpuHealth per device, each value that NVML would
// not give recorded in unread with NVML's own words; XID events drained without waiting.
#pragma once

#include <string>
#include <vector>

#include "health/nvml_api.hpp"
#include "health/records.hpp"

namespace commsweep::health {

// NVLink links are probed up to this index (NVML_NVLINK_MAX_LINKS is 18 on Hopper).
inline constexpr unsigned kMaxNvLinks = 18;

std::vector<GpuHealth> read_gpus(NvmlApi& nvml);
// The NVLinks of GPU INDEX (NVML's index) with their error counters; what NVML would not give
// goes to UNREAD.
std::vector<NvLink> read_nvlinks(NvmlApi& nvml, unsigned index, std::vector<std::string>* unread);
// GPU INDEX's NVLink version, common speed and link count (fields 90, 91) into G, whose
// nvlinks are read: what its NVLink mode is judged from (health/nvlink_mode.hpp).
void read_nvlink_mode(NvmlApi& nvml, unsigned index, GpuHealth* g);
// Every XID event NVML holds now (register_xid_events first); bounded by MAX_EVENTS.
std::vector<XidEvent> drain_xid_events(NvmlApi& nvml, std::vector<std::string>* unread, unsigned max_events = 256);

}  // namespace commsweep::health
