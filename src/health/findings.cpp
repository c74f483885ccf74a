#include "health/findings.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace commsweep::health {

std::string to_string(Severity s) {
  switch (s) {
    case Severity::Info: return "INFO";
    case Severity::Warn: return "WARN";
    case Severity::Fail: return "FAIL";
  }
  return "?";
}

std::optional<CounterRule> rule_of(const std::string& counter) {
  // Rates are rises per second of traffic. A few symbol errors a minute are within what the
  // IB spec's bit error rate allows on a long cable; a link that retrains, loses its integrity
  // or overruns its buffers even once has a cable, transceiver or port to look at.
  static const std::map<std::string, CounterRule> rules = {
      {"link_downed", {true, 0, false}},
      {"symbol_error", {false, 0.1, false}},
      {"link_error_recovery", {false, 0, false}},
      {"port_rcv_errors", {false, 0.1, false}},
      {"port_rcv_remote_physical_errors", {false, 0.1, false}},
      {"port_rcv_switch_relay_errors", {false, 1, false}},
      {"port_xmit_discards", {false, 1, false}},
      {"port_xmit_constraint_errors", {false, 0, false}},
      {"port_rcv_constraint_errors", {false, 0, false}},
      {"local_link_integrity_errors", {false, 0, false}},
      {"excessive_buffer_overrun_errors", {false, 0, false}},
      {"VL15_dropped", {false, 1, false}},
      {"port_xmit_wait", {false, 0, true}},  // congestion: time with data and no credits
      // mlx5 hw_counters (RoCE and IB): retransmissions and transport errors ...
      {"out_of_sequence", {false, 1, false}},
      {"packet_seq_err", {false, 1, false}},
      {"local_ack_timeout_err", {false, 0, false}},
      {"rnr_nak_retry_err", {false, 0, false}},
      {"implied_nak_seq_err", {false, 1, false}},
      {"duplicate_request", {false, 1, false}},
      {"req_cqe_error", {false, 0, false}},
      {"resp_cqe_error", {false, 0, false}},
      {"rx_icrc_encapsulated", {false, 0, false}},
      {"out_of_buffer", {false, 1, false}},
      // ... and RoCE congestion control at work: evidence, not errors.
      {"np_cnp_sent", {false, 0, true}},
      {"rp_cnp_handled", {false, 0, true}},
      {"np_ecn_marked_roce_packets", {false, 0, true}},
      {"rp_cnp_ignored", {false, 0, true}},
  };
  const auto it = rules.find(counter);
  if (it == rules.end()) return std::nullopt;
  return it->second;
}

Severity worst(const std::vector<Finding>& findings) {
  Severity w = Severity::Info;
  for (const auto& f : findings) w = std::max(w, f.severity);
  return w;
}

namespace {

class Judge {
 public:
  Judge(const std::string& host, double seconds) : host_(host), seconds_(seconds) {}
  void add(Severity s, const std::string& component, const std::string& counter, const std::string& detail,
           std::optional<std::uint64_t> delta = std::nullopt) {
    out_.push_back(Finding{s, host_, component, counter, delta, detail});
  }
  // A counter's rise from B to A under its rule; saturation is said instead of a delta.
  void counter(const std::string& component, const Counter* b, const Counter& a) {
    const auto rule = rule_of(a.name);
    if (!rule) return;
    if (a.saturated) {
      add(Severity::Warn, component, a.name,
          "saturated at " + std::to_string(*a.value) + " (" + std::to_string(a.width_bits) +
              "-bit counter stopped counting: clear the port's counters to see new errors)");
      out_.back().persistent = b && b->saturated;  // stopped before the run: not this run's
      return;
    }
    if (!b || !b->value || !a.value || b->saturated) return;
    if (*a.value < *b->value) {
      add(Severity::Info, component, a.name, "reset (" + std::to_string(*b->value) + " -> " + std::to_string(*a.value) + ")");
      return;
    }
    rise(component, a.name, *a.value - *b->value, *rule);
  }
  void rise(const std::string& component, const std::string& name, std::uint64_t delta, const CounterRule& rule) {
    if (delta == 0) return;
    Severity s = Severity::Info;
    if (rule.fail_on_rise) s = Severity::Fail;
    else if (!rule.info_only && static_cast<double>(delta) > rule.warn_per_second * seconds_) s = Severity::Warn;
    add(s, component, name, "+" + std::to_string(delta), delta);
  }
  std::vector<Finding> take() { return std::move(out_); }

 private:
  std::string host_;
  double seconds_;
  std::vector<Finding> out_;
};

const Counter* find_counter(const std::vector<Counter>& counters, const std::string& name) {
  for (const auto& c : counters)
    if (c.name == name) return &c;
  return nullptr;
}

// "16.0 GT/s PCIe" -> 16.
double gts(const std::string& speed) { return std::atof(speed.c_str()); }

// The width most of the node's active ports of this link layer run at: a port below it trained
// narrow (sysfs shows the active width only, not what the port supports).
int usual_width(const Snapshot& s, const std::string& link_layer, double* usual_speed) {
  std::map<int, int> widths;
  std::map<double, int> speeds;
  for (const auto& p : s.ports)
    if (p.link_layer == link_layer && p.state == "ACTIVE" && p.width > 0) {
      ++widths[p.width];
      ++speeds[p.speed_gbps];
    }
  int best = 0, n = 0;
  for (const auto& [w, count] : widths)
    if (count > n) best = w, n = count;
  n = 0;
  *usual_speed = 0;
  for (const auto& [v, count] : speeds)
    if (count > n) *usual_speed = v, n = count;
  return best;
}

// Clock event reasons that mean the hardware held the clocks down (nvml.h
// nvmlClocksEventReason*): HW slowdown 0x8, SW thermal 0x20, HW thermal 0x40, HW power brake 0x80.
std::string throttle_names(std::uint64_t reasons) {
  std::string out;
  const std::pair<std::uint64_t, const char*> bits[] = {
      {0x8, "HW slowdown"}, {0x20, "SW thermal slowdown"}, {0x40, "HW thermal slowdown"}, {0x80, "HW power brake"}};
  for (const auto& [bit, name] : bits)
    if (reasons & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

bool critical_xid(std::uint64_t xid) {
  // 79 fallen off the bus, 74 NVLink error, 48 double-bit ECC, 94/95 contained/uncontained ECC.
  return xid == 79 || xid == 74 || xid == 48 || xid == 94 || xid == 95;
}

void state_findings(const Snapshot& s, Judge& j) {
  for (const auto& p : s.ports) {
    if (p.state != "ACTIVE") j.add(Severity::Warn, p.component(), "state", p.state + " (" + p.phys_state + ")");
    double speed = 0;
    const int width = usual_width(s, p.link_layer, &speed);
    if (p.state == "ACTIVE" && p.width > 0 && width > 0 && p.width < width)
      j.add(Severity::Fail, p.component(), "width",
            "degraded: " + p.rate + " where the node's other ports run " + std::to_string(width) + "X");
    else if (p.state == "ACTIVE" && p.speed_gbps > 0 && p.speed_gbps < speed)
      j.add(Severity::Warn, p.component(), "rate", "slower: " + p.rate + " where the node's other ports run " +
                                                      std::to_string(static_cast<int>(speed)) + " Gb/sec");
    for (const auto& c : p.counters)
      if (c.saturated) j.counter(p.component(), nullptr, c);
    for (const auto& c : p.hw_counters)
      if (c.saturated) j.counter(p.component(), nullptr, c);
  }
  for (const auto& l : s.pcie) {
    const std::string component = "PCIe " + l.address + " (" + l.role + ")";
    if (l.current_width > 0 && l.max_width > 0 && l.current_width < l.max_width)
      j.add(Severity::Fail, component, "width",
            "degraded: x" + std::to_string(l.current_width) + " of x" + std::to_string(l.max_width));
    // GPUs lower their link speed when idle (power saving): only a NIC's slower link is a finding.
    if (l.role != "GPU" && gts(l.current_speed) > 0 && gts(l.current_speed) < gts(l.max_speed))
      j.add(Severity::Warn, component, "speed", "slower: " + l.current_speed + " of " + l.max_speed);
  }
  for (const auto& g : s.gpus) {
    bool any_active = false;
    for (const auto& l : g.nvlinks) any_active = any_active || l.active;
    if (any_active)
      for (const auto& l : g.nvlinks)
        if (!l.active) j.add(Severity::Warn, g.component() + " NVLink " + std::to_string(l.link), "state", "inactive while the GPU's other links are up");
    if (g.clock_event_reasons && !throttle_names(*g.clock_event_reasons).empty())
      j.add(Severity::Warn, g.component(), "clock_event_reasons", throttle_names(*g.clock_event_reasons));
    if (g.remap_failure.value_or(false)) j.add(Severity::Fail, g.component(), "remapped_rows", "row remapping failed");
    else if (g.remap_pending.value_or(false)) j.add(Severity::Warn, g.component(), "remapped_rows", "remap pending: reset the GPU");
    if (g.retired_pages_pending.value_or(false)) j.add(Severity::Warn, g.component(), "retired_pages", "retirement pending: reset the GPU");
  }
  for (const auto& x : s.xids)
    j.add(critical_xid(x.xid) ? Severity::Fail : Severity::Warn, "GPU " + std::to_string(x.gpu), "xid",
          "XID " + std::to_string(x.xid));
}

void port_changes(const Snapshot& b, const Snapshot& a, Judge& j) {
  for (const auto& pb : b.ports) {
    const PortHealth* pa = nullptr;
    for (const auto& p : a.ports)
      if (p.device == pb.device && p.port == pb.port) pa = &p;
    if (!pa) {
      j.add(Severity::Fail, pb.component(), "present", "gone since the first snapshot (device removed or driver reset)");
      continue;
    }
    if (pb.state != pa->state || pb.phys_state != pa->phys_state)
      j.add(pb.state == "ACTIVE" ? Severity::Fail : Severity::Info, pb.component(), "state",
            pb.state + " -> " + pa->state + " (" + pb.phys_state + " -> " + pa->phys_state + ")");
    for (const auto& c : pa->counters) j.counter(pb.component(), find_counter(pb.counters, c.name), c);
    for (const auto& c : pa->hw_counters) j.counter(pb.component(), find_counter(pb.hw_counters, c.name), c);
  }
}

void pcie_changes(const Snapshot& b, const Snapshot& a, Judge& j) {
  for (const auto& lb : b.pcie) {
    const PcieLink* la = nullptr;
    for (const auto& l : a.pcie)
      if (l.address == lb.address) la = &l;
    const std::string component = "PCIe " + lb.address + " (" + lb.role + ")";
    if (!la) {
      j.add(Severity::Fail, component, "present", "gone since the first snapshot");
      continue;
    }
    if (!lb.aer || !la->aer) continue;
    auto up = [](std::uint64_t x, std::uint64_t y) { return y > x ? y - x : 0; };
    j.rise(component, "aer_fatal", up(lb.aer->total_fatal, la->aer->total_fatal), {true, 0, false});
    j.rise(component, "aer_nonfatal", up(lb.aer->total_nonfatal, la->aer->total_nonfatal), {false, 0, false});
    j.rise(component, "aer_correctable", up(lb.aer->total_correctable, la->aer->total_correctable), {false, 1, false});
  }
}

void gpu_changes(const Snapshot& b, const Snapshot& a, Judge& j) {
  for (const auto& gb : b.gpus) {
    const GpuHealth* ga = nullptr;
    for (const auto& g : a.gpus)
      if (g.pci_bus_id == gb.pci_bus_id) ga = &g;
    if (!ga) {
      j.add(Severity::Fail, gb.component(), "present", "gone since the first snapshot (fallen off the bus?)");
      continue;
    }
    auto rise = [&](const std::string& component, const char* name, const std::optional<std::uint64_t>& x,
                    const std::optional<std::uint64_t>& y, CounterRule rule) {
      if (x && y && *y > *x) j.rise(component, name, *y - *x, rule);
    };
    rise(gb.component(), "pcie_replay", gb.pcie_replay, ga->pcie_replay, {false, 1, false});
    rise(gb.component(), "ecc_uncorrected", gb.ecc_uncorrected, ga->ecc_uncorrected, {true, 0, false});
    rise(gb.component(), "ecc_corrected", gb.ecc_corrected, ga->ecc_corrected, {false, 1, false});
    for (const auto& lb : gb.nvlinks) {
      const std::string component = gb.component() + " NVLink " + std::to_string(lb.link);
      const NvLink* la = nullptr;
      for (const auto& l : ga->nvlinks)
        if (l.link == lb.link) la = &l;
      if (!la) continue;
      if (lb.active && !la->active) j.add(Severity::Fail, component, "state", "went down during the run");
      rise(component, "nvlink_replay", lb.replay, la->replay, {false, 1, false});
      rise(component, "nvlink_recovery", lb.recovery, la->recovery, {false, 0, false});
      rise(component, "nvlink_crc_flit", lb.crc_flit, la->crc_flit, {false, 1, false});
      rise(component, "nvlink_crc_data", lb.crc_data, la->crc_data, {false, 0, false});
    }
  }
}

}  // namespace

std::vector<Finding> judge_state(const Snapshot& now) {
  Judge j(now.host, 0);
  state_findings(now, j);
  for (const auto& l : now.pcie)
    if (l.aer && l.aer->total_fatal > 0)
      j.add(Severity::Warn, "PCIe " + l.address + " (" + l.role + ")", "aer_fatal",
            std::to_string(l.aer->total_fatal) + " since boot");
  return j.take();
}

std::vector<Finding> judge_change(const Snapshot& before, const Snapshot& after) {
  Judge j(after.host, std::max(0.0, after.taken_at - before.taken_at));
  port_changes(before, after, j);
  pcie_changes(before, after, j);
  gpu_changes(before, after, j);
  // The state of the after snapshot, less what was already so before (a port down before and
  // after was said by the state change rule, or is not this run's doing).
  std::vector<Finding> changes = j.take();
  Judge s(after.host, 0);
  state_findings(after, s);
  Judge was(before.host, 0);
  state_findings(before, was);
  const std::vector<Finding> earlier = was.take();
  for (auto& f : s.take()) {
    bool dup = false;
    for (const auto& c : changes) dup = dup || (c.component == f.component && c.counter == f.counter);
    if (dup) continue;
    // XID events are events, not states: one delivered between the snapshots is always new.
    for (const auto& e : earlier)
      f.persistent = f.persistent || (f.counter != "xid" && e.component == f.component && e.counter == f.counter &&
                                       e.detail == f.detail);
    changes.push_back(std::move(f));
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Finding& x, const Finding& y) { return x.severity > y.severity; });
  return changes;
}

}  // namespace commsweep::health
