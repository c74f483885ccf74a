// A recorded NVML for the health tests: what NVML answers on an 8 x H100 SXM node (names, bus
// ids, 18 NVLinks per GPU, counters), held as data; a test changes the record between two
// snapshots as the driver would (an XID event, a link gone down, counters rising).
#pragma once

#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "health/nvml_api.hpp"

namespace commsweep::health::testing {

struct RecordedLink {
  bool active = true;
  std::uint64_t replay = 0, recovery = 0, crc_flit = 0, crc_data = 0;
};

struct RecordedGpu {
  std::string name = "NVIDIA H100 80GB HBM3";
  std::string bus_id;
  unsigned temperature = 34;
  std::uint64_t clock_event_reasons = 0x1;  // GPU idle
  unsigned pcie_replay = 0;
  unsigned gen = 5, max_gen = 5, width = 16, max_width = 16;
  std::uint64_t ecc_corrected = 0, ecc_uncorrected = 0;
  bool remap_pending = false, remap_failure = false;
  int ecc_rc = nvml_rc::kSuccess;
  std::vector<RecordedLink> links = std::vector<RecordedLink>(18);
  unsigned link_version = 6;  // NVML_NVLINK_VERSION_4_0: Hopper
  // nvmlDeviceGetFieldValues' answers by field id (NVML_FI_DEV_*); a field not here answers
  // NOT_SUPPORTED, as the lent H200 (a pass-through VM without NVLink) answered fields 90 and 91
  // (tests/fixtures/nvml/h200-vm-nvlink.json). No healthy speed was recorded: a test that needs
  // one plants it and says so.
  std::map<unsigned, std::int64_t> fields;
};

class RecordedNvml final : public NvmlApi {
 public:
  explicit RecordedNvml(int gpus = 8) {
    for (int i = 0; i < gpus; ++i) {
      RecordedGpu g;
      char id[32];
      std::snprintf(id, sizeof id, "00000000:%02X:00.0", 0x18 + 0x10 * i);
      g.bus_id = id;
      this->gpus.push_back(g);
    }
  }
  std::vector<RecordedGpu> gpus;
  std::deque<std::pair<unsigned, std::uint64_t>> xids;  // (gpu, xid) the driver will deliver
  std::string why_unavailable;
  bool registered = false;

  std::string unavailable() const override { return why_unavailable; }
  std::string error_string(int rc) const override {
    static const std::map<int, std::string> words = {{nvml_rc::kNotSupported, "Not Supported"},
                                                     {nvml_rc::kNoPermission, "Insufficient Permissions"},
                                                     {nvml_rc::kInvalidArgument, "Invalid Argument"}};
    const auto it = words.find(rc);
    return it == words.end() ? "Unknown Error" : it->second;
  }
  int device_count(unsigned* n) override { *n = static_cast<unsigned>(gpus.size()); return 0; }
  int name(unsigned i, std::string* s) override { *s = gpus.at(i).name; return 0; }
  int pci_bus_id(unsigned i, std::string* s) override { *s = gpus.at(i).bus_id; return 0; }
  int temperature(unsigned i, unsigned* c) override { *c = gpus.at(i).temperature; return 0; }
  int clock_event_reasons(unsigned i, std::uint64_t* r) override { *r = gpus.at(i).clock_event_reasons; return 0; }
  int pcie_replay_counter(unsigned i, unsigned* n) override { *n = gpus.at(i).pcie_replay; return 0; }
  int pcie_link(unsigned i, unsigned* g, unsigned* mg, unsigned* w, unsigned* mw) override {
    const auto& x = gpus.at(i);
    *g = x.gen, *mg = x.max_gen, *w = x.width, *mw = x.max_width;
    return 0;
  }
  int ecc_volatile(unsigned i, bool unc, std::uint64_t* n) override {
    *n = unc ? gpus.at(i).ecc_uncorrected : gpus.at(i).ecc_corrected;
    return gpus.at(i).ecc_rc;
  }
  int retired_pages_pending(unsigned, bool* p) override { *p = false; return nvml_rc::kNotSupported; }
  int remapped_rows(unsigned i, bool* p, bool* f) override {
    *p = gpus.at(i).remap_pending, *f = gpus.at(i).remap_failure;
    return 0;
  }
  int nvlink_state(unsigned i, unsigned link, bool* active) override {
    if (link >= gpus.at(i).links.size()) return gpus.at(i).links.empty() ? nvml_rc::kNotSupported : nvml_rc::kInvalidArgument;
    *active = gpus.at(i).links[link].active;
    return 0;
  }
  int nvlink_error_counter(unsigned i, unsigned link, NvLinkCounter c, std::uint64_t* v) override {
    const auto& l = gpus.at(i).links.at(link);
    switch (c) {
      case NvLinkCounter::Replay: *v = l.replay; break;
      case NvLinkCounter::Recovery: *v = l.recovery; break;
      case NvLinkCounter::CrcFlit: *v = l.crc_flit; break;
      case NvLinkCounter::CrcData: *v = l.crc_data; break;
    }
    return 0;
  }
  int nvlink_version(unsigned i, unsigned link, unsigned* v) override {
    if (link >= gpus.at(i).links.size()) return nvml_rc::kInvalidArgument;
    *v = gpus.at(i).link_version;
    return 0;
  }
  int register_xid_events() override { registered = true; return 0; }
  int wait_xid_event(unsigned, unsigned* gpu, std::uint64_t* xid) override {
    if (!registered || xids.empty()) return nvml_rc::kTimeout;
    *gpu = xids.front().first;
    *xid = xids.front().second;
    xids.pop_front();
    return 0;
  }
  int field_value(unsigned i, unsigned field, std::int64_t* value) override {
    const auto& f = gpus.at(i).fields;
    const auto it = f.find(field);
    if (it == f.end()) return nvml_rc::kNotSupported;
    *value = it->second;
    return 0;
  }
};

}  // namespace commsweep::health::testing
