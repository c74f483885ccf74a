#include "health/gpu_reader.hpp"

namespace commsweep::health {

namespace {

// Stores VALUE in OUT on success; otherwise notes what NVML said, except NOT_SUPPORTED on
// items a GPU may lack by design (a consumer board has no ECC): those are left empty quietly.
template <typename T, typename V>
void keep(NvmlApi& nvml, int rc, const V& value, std::optional<T>* out, const char* what, GpuHealth* gpu) {
  if (rc == nvml_rc::kSuccess) {
    *out = static_cast<T>(value);
  } else if (rc != nvml_rc::kNotSupported) {
    gpu->unread.push_back(std::string(what) + ": " + nvml.error_string(rc));
  }
}

}  // namespace

std::vector<NvLink> read_nvlinks(NvmlApi& nvml, unsigned index, std::vector<std::string>* unread) {
  std::vector<NvLink> links;
  for (unsigned link = 0; link < kMaxNvLinks; ++link) {
    bool active = false;
    const int rc = nvml.nvlink_state(index, link, &active);
    if (rc == nvml_rc::kInvalidArgument || rc == nvml_rc::kNotSupported) {
      if (link == 0) unread->push_back("NVLink: none (" + nvml.error_string(rc) + ")");
      break;
    }
    if (rc != nvml_rc::kSuccess) {
      unread->push_back("NVLink " + std::to_string(link) + " state: " + nvml.error_string(rc));
      continue;
    }
    NvLink l;
    l.link = static_cast<int>(link);
    l.active = active;
    struct Item { NvLinkCounter counter; std::optional<std::uint64_t>* out; };
    for (const Item& item : {Item{NvLinkCounter::Replay, &l.replay}, Item{NvLinkCounter::Recovery, &l.recovery},
                             Item{NvLinkCounter::CrcFlit, &l.crc_flit}, Item{NvLinkCounter::CrcData, &l.crc_data}}) {
      std::uint64_t v = 0;
      if (nvml.nvlink_error_counter(index, link, item.counter, &v) == nvml_rc::kSuccess) *item.out = v;
    }
    links.push_back(l);
  }
  return links;
}

void read_nvlink_mode(NvmlApi& nvml, unsigned index, GpuHealth* g) {
  for (const auto& l : g->nvlinks) {
    unsigned v = 0;
    if (l.active && nvml.nvlink_version(index, static_cast<unsigned>(l.link), &v) == nvml_rc::kSuccess) {
      g->nvlink_version = v;
      break;
    }
  }
  // Only a GPU with NVLinks has the fields; one without answers NOT_SUPPORTED, said already.
  if (g->nvlinks.empty()) return;
  std::int64_t value = 0;
  if (nvml.field_value(index, nvml_field::kNvLinkSpeedMbpsCommon, &value) == nvml_rc::kSuccess && value > 0)
    g->nvlink_speed_mbps = static_cast<unsigned>(value);
  if (nvml.field_value(index, nvml_field::kNvLinkLinkCount, &value) == nvml_rc::kSuccess && value >= 0)
    g->nvlink_link_count = static_cast<unsigned>(value);
}

std::vector<GpuHealth> read_gpus(NvmlApi& nvml) {
  std::vector<GpuHealth> gpus;
  unsigned count = 0;
  if (!nvml.unavailable().empty() || nvml.device_count(&count) != nvml_rc::kSuccess) return gpus;
  for (unsigned i = 0; i < count; ++i) {
    GpuHealth g;
    g.index = static_cast<int>(i);
    nvml.name(i, &g.name);
    nvml.pci_bus_id(i, &g.pci_bus_id);
    unsigned u = 0;
    std::uint64_t v = 0;
    bool b = false, failure = false;
    keep(nvml, nvml.temperature(i, &u), u, &g.temperature_c, "temperature", &g);
    keep(nvml, nvml.clock_event_reasons(i, &v), v, &g.clock_event_reasons, "clock event reasons", &g);
    keep(nvml, nvml.pcie_replay_counter(i, &u), u, &g.pcie_replay, "PCIe replay counter", &g);
    unsigned gen = 0, max_gen = 0, width = 0, max_width = 0;
    if (nvml.pcie_link(i, &gen, &max_gen, &width, &max_width) == nvml_rc::kSuccess) {
      g.pcie_gen = gen;
      g.pcie_max_gen = max_gen;
      g.pcie_width = width;
      g.pcie_max_width = max_width;
    }
    keep(nvml, nvml.ecc_volatile(i, false, &v), v, &g.ecc_corrected, "ECC corrected", &g);
    keep(nvml, nvml.ecc_volatile(i, true, &v), v, &g.ecc_uncorrected, "ECC uncorrected", &g);
    keep(nvml, nvml.retired_pages_pending(i, &b), b, &g.retired_pages_pending, "retired pages", &g);
    const int rc = nvml.remapped_rows(i, &b, &failure);
    keep(nvml, rc, b, &g.remap_pending, "remapped rows", &g);
    if (rc == nvml_rc::kSuccess) g.remap_failure = failure;
    g.nvlinks = read_nvlinks(nvml, i, &g.unread);
    read_nvlink_mode(nvml, i, &g);
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::vector<XidEvent> drain_xid_events(NvmlApi& nvml, std::vector<std::string>* unread, unsigned max_events) {
  std::vector<XidEvent> events;
  if (!nvml.unavailable().empty()) return events;
  for (unsigned n = 0; n < max_events; ++n) {
    XidEvent e;
    unsigned gpu = 0;
    const int rc = nvml.wait_xid_event(0, &gpu, &e.xid);
    if (rc == nvml_rc::kTimeout) break;
    if (rc != nvml_rc::kSuccess) {
      unread->push_back("XID events: " + nvml.error_string(rc));
      break;
    }
    e.gpu = static_cast<int>(gpu);
    events.push_back(e);
  }
  return events;
}

}  // namespace commsweep::health
