#include "health/findings.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "health/nvlink_mode.hpp"

namespace commsweep::health {

const RuleBook& builtin_rules() {
  static const RuleBook book;
  return book;
}

Severity worst(const std::vector<Finding>& findings) {
  Severity w = Severity::Info;
  for (const auto& f : findings) w = std::max(w, f.severity);
  return w;
}

RuleClass class_of_component(const std::string& component) {
  if (component.rfind("PCIe ", 0) == 0) return RuleClass::Pcie;
  if (component.find(" NVLink ") != std::string::npos) return RuleClass::NvLink;
  if (component.rfind("GPU ", 0) == 0) return RuleClass::Gpu;
  return RuleClass::RdmaPort;
}

namespace {

// "+412" or "+412, 41/s" (the rate in the rule's own unit, per second or per minute).
std::string rise_detail(std::uint64_t delta, double seconds, const Rule& rule) {
  std::string out = "+" + std::to_string(delta);
  if (seconds > 0) out += ", " + rate_text(static_cast<double>(delta) / seconds, rule.per_minute);
  return out;
}

class Judge {
 public:
  Judge(const std::string& host, double seconds, const RuleBook& rules) : host_(host), seconds_(seconds), rules_(rules) {}
  // A state finding of rule RULE (its severity from the table).
  void add(const std::string& rule, const std::string& component, const std::string& counter, const std::string& detail) {
    const Rule& r = rules_.at(rule);
    Finding f;
    f.severity = r.severity;
    f.host = host_;
    f.component = component;
    f.counter = counter;
    f.detail = detail;
    f.rule = r.name;
    f.cls = r.cls;
    f.limit = r.said();
    out_.push_back(std::move(f));
  }
  // A counter's rise from B to A under its rule; saturation is said instead of a delta.
  void counter(const std::string& component, const Counter* b, const Counter& a) {
    const Rule* rule = rules_.find(a.name);
    if (!rule || rule->kind != RuleKind::Rise) return;  // traffic, settings, counters no rule judges
    if (a.saturated) {
      add("counter_saturated", component, a.name,
          "saturated at " + std::to_string(*a.value) + " (" + std::to_string(a.width_bits) +
              "-bit counter stopped counting: clear the port's counters to see new errors)");
      out_.back().persistent = b && b->saturated;  // stopped before the run: not this run's
      return;
    }
    if (!b || !b->value || !a.value || b->saturated) return;
    if (*a.value < *b->value) {
      rise_finding(component, *rule, 0, "reset (" + std::to_string(*b->value) + " -> " + std::to_string(*a.value) + ")");
      return;
    }
    rise(component, a.name, *a.value - *b->value);
  }
  void rise(const std::string& component, const std::string& name, std::uint64_t delta) {
    if (delta == 0) return;
    const Rule& rule = rules_.at(name);
    rise_finding(component, rule, delta, rise_detail(delta, seconds_, rule));
  }
  std::vector<Finding> take() { return std::move(out_); }

 private:
  void rise_finding(const std::string& component, const Rule& rule, std::uint64_t delta, const std::string& detail) {
    Finding f;
    f.severity = rule.judge_rise(delta, seconds_);
    f.host = host_;
    f.component = component;
    f.counter = rule.name;
    f.detail = detail;
    if (delta > 0) f.delta = delta;
    if (delta > 0 && seconds_ > 0) f.rate = static_cast<double>(delta) / seconds_;
    f.rule = rule.name;
    f.cls = rule.cls;
    f.limit = rule.said();
    out_.push_back(std::move(f));
  }

  std::string host_;
  double seconds_;
  const RuleBook& rules_;
  std::vector<Finding> out_;
};

const Counter* find_counter(const std::vector<Counter>& counters, const std::string& name) {
  for (const auto& c : counters)
    if (c.name == name) return &c;
  return nullptr;
}

// "16.0 GT/s PCIe" -> 16.
double gts(const std::string& speed) { return std::atof(speed.c_str()); }

// The widest and fastest of the node's other active ports of P's link layer and NIC model: a
// port below them trained narrow or slow (sysfs shows the active width only, not what the port
// supports). Ports of another model (a front-end NIC beside the GPU fabric's) are not its like.
struct Peers {
  int width = 0;
  double speed = 0;
  bool any = false;
};
Peers peers_of(const Snapshot& s, const PortHealth& p, bool same_model) {
  Peers out;
  for (const auto& q : s.ports) {
    if (&q == &p || q.link_layer != p.link_layer || q.state != "ACTIVE" || q.width <= 0) continue;
    if ((q.nic_model == p.nic_model) != same_model) continue;
    out.any = true;
    out.width = std::max(out.width, q.width);
    out.speed = std::max(out.speed, q.speed_gbps);
  }
  return out;
}

std::string model_named(const PortHealth& p) { return p.nic_model.empty() ? "" : " (" + p.nic_model + ")"; }

void port_state(const Snapshot& s, const PortHealth& p, Judge& j) {
  if (p.state != "ACTIVE") {
    j.add("port_not_active", p.component(), "state", p.state + " (" + p.phys_state + ")");
    return;
  }
  if (p.width <= 0) return;
  const Peers like = peers_of(s, p, true);
  if (like.any && p.width < like.width) {
    j.add("port_width", p.component(), "width",
          "degraded: " + p.rate + " where the node's other ports of its model" + model_named(p) + " run " +
              std::to_string(like.width) + "X");
  } else if (like.any && p.speed_gbps > 0 && p.speed_gbps < like.speed) {
    j.add("port_speed", p.component(), "rate",
          "slower: " + p.rate + " where the node's other ports of its model" + model_named(p) + " run " +
              std::to_string(static_cast<int>(like.speed)) + " Gb/sec");
  } else if (!like.any) {
    const Peers other = peers_of(s, p, false);
    if (other.any && (p.width < other.width || p.speed_gbps < other.speed))
      j.add("port_unmatched", p.component(), "rate",
            p.rate + ": no other port of its model" + model_named(p) + " to compare with (other NIC models here run up to " +
                std::to_string(other.width) + "X, " + std::to_string(static_cast<int>(other.speed)) + " Gb/sec)");
  }
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

std::string pcie_component(const PcieLink& l) { return "PCIe " + l.address + " (" + l.role + ")"; }
std::string nvlink_component(const GpuHealth& g, int link) { return g.component() + " NVLink " + std::to_string(link); }

// "12-17" or "3, 7": the inactive links of G.
std::string inactive_links(const GpuHealth& g) {
  std::string out;
  for (std::size_t i = 0; i < g.nvlinks.size(); ++i) {
    if (g.nvlinks[i].active) continue;
    std::size_t last = i;
    while (last + 1 < g.nvlinks.size() && !g.nvlinks[last + 1].active && g.nvlinks[last + 1].link == g.nvlinks[last].link + 1) ++last;
    out += (out.empty() ? "" : ", ") + std::to_string(g.nvlinks[i].link) +
           (last > i ? "-" + std::to_string(g.nvlinks[last].link) : "");
    i = last;
  }
  return out;
}

void gpu_state(const GpuHealth& g, Judge& j) {
  bool any_active = false;
  for (const auto& l : g.nvlinks) any_active = any_active || l.active;
  const NvLinkMode mode = nvlink_mode(g);
  if (mode.reduced) {
    const std::string links = inactive_links(g);
    j.add("nvlink_reduced", g.component() + " NVLinks", "mode",
          "reduced: " + mode.why + (links.empty() ? "" : "; inactive: " + links));
  } else if (any_active && !(mode.model && mode.model->bridged)) {  // a bridged board: as many as fitted
    for (const auto& l : g.nvlinks)
      if (!l.active) j.add("nvlink_inactive", nvlink_component(g, l.link), "state", "inactive while the GPU's other links are up");
  }
  if (g.clock_event_reasons && !throttle_names(*g.clock_event_reasons).empty())
    j.add("clock_event_reasons", g.component(), "clock_event_reasons", throttle_names(*g.clock_event_reasons));
  if (g.remap_failure.value_or(false)) j.add("remap_failure", g.component(), "remapped_rows", "row remapping failed");
  else if (g.remap_pending.value_or(false)) j.add("remap_pending", g.component(), "remapped_rows", "remap pending: reset the GPU");
  if (g.retired_pages_pending.value_or(false))
    j.add("retired_pages_pending", g.component(), "retired_pages", "retirement pending: reset the GPU");
}

void state_findings(const Snapshot& s, Judge& j) {
  for (const auto& p : s.ports) {
    port_state(s, p, j);
    for (const auto& c : p.counters)
      if (c.saturated) j.counter(p.component(), nullptr, c);
    for (const auto& c : p.hw_counters)
      if (c.saturated) j.counter(p.component(), nullptr, c);
  }
  for (const auto& l : s.pcie) {
    if (l.current_width > 0 && l.max_width > 0 && l.current_width < l.max_width)
      j.add("pcie_width", pcie_component(l), "width",
            "degraded: x" + std::to_string(l.current_width) + " of x" + std::to_string(l.max_width));
    // GPUs lower their link speed when idle (power saving): only a NIC's slower link is a finding.
    if (l.role != "GPU" && gts(l.current_speed) > 0 && gts(l.current_speed) < gts(l.max_speed))
      j.add("pcie_speed", pcie_component(l), "speed", "slower: " + l.current_speed + " of " + l.max_speed);
  }
  std::vector<std::string> unknown;  // models with NVLinks the table lacks: said once each
  for (const auto& g : s.gpus) {
    gpu_state(g, j);
    if (g.nvlinks.empty() || nvlink_model_of(g.name) || std::find(unknown.begin(), unknown.end(), g.name) != unknown.end())
      continue;
    unknown.push_back(g.name);
    j.add("nvlink_model_unknown", g.component() + " NVLinks", "mode",
          nvlink_mode(g).text() + ": not judged against a model's links");
  }
  for (const auto& x : s.xids)
    j.add(critical_xid(x.xid) ? "xid_critical" : "xid", "GPU " + std::to_string(x.gpu), "xid", "XID " + std::to_string(x.xid));
}

void port_changes(const Snapshot& b, const Snapshot& a, Judge& j) {
  for (const auto& pb : b.ports) {
    const PortHealth* pa = nullptr;
    for (const auto& p : a.ports)
      if (p.device == pb.device && p.port == pb.port) pa = &p;
    if (!pa) {
      j.add("port_gone", pb.component(), "present", "gone since the first snapshot (device removed or driver reset)");
      continue;
    }
    if (pb.state != pa->state || pb.phys_state != pa->phys_state)
      j.add(pb.state == "ACTIVE" && pa->state != "ACTIVE" ? "port_left_active" : "port_state_changed", pb.component(),
            "state", pb.state + " -> " + pa->state + " (" + pb.phys_state + " -> " + pa->phys_state + ")");
    for (const auto& c : pa->counters) j.counter(pb.component(), find_counter(pb.counters, c.name), c);
    for (const auto& c : pa->hw_counters) j.counter(pb.component(), find_counter(pb.hw_counters, c.name), c);
  }
}

void pcie_changes(const Snapshot& b, const Snapshot& a, Judge& j) {
  for (const auto& lb : b.pcie) {
    const PcieLink* la = nullptr;
    for (const auto& l : a.pcie)
      if (l.address == lb.address) la = &l;
    if (!la) {
      j.add("pcie_gone", pcie_component(lb), "present", "gone since the first snapshot");
      continue;
    }
    if (!lb.aer || !la->aer) continue;
    auto up = [](std::uint64_t x, std::uint64_t y) { return y > x ? y - x : 0; };
    j.rise(pcie_component(lb), "aer_fatal", up(lb.aer->total_fatal, la->aer->total_fatal));
    j.rise(pcie_component(lb), "aer_nonfatal", up(lb.aer->total_nonfatal, la->aer->total_nonfatal));
    j.rise(pcie_component(lb), "aer_correctable", up(lb.aer->total_correctable, la->aer->total_correctable));
  }
}

void gpu_changes(const Snapshot& b, const Snapshot& a, Judge& j) {
  for (const auto& gb : b.gpus) {
    const GpuHealth* ga = nullptr;
    for (const auto& g : a.gpus)
      if (g.same_gpu(gb)) ga = &g;
    if (!ga) {
      j.add("gpu_gone", gb.component(), "present", "gone since the first snapshot (fallen off the bus?)");
      continue;
    }
    auto rise = [&](const std::string& component, const char* name, const std::optional<std::uint64_t>& x,
                    const std::optional<std::uint64_t>& y) {
      if (x && y && *y > *x) j.rise(component, name, *y - *x);
    };
    rise(gb.component(), "pcie_replay", gb.pcie_replay, ga->pcie_replay);
    rise(gb.component(), "ecc_uncorrected", gb.ecc_uncorrected, ga->ecc_uncorrected);
    rise(gb.component(), "ecc_corrected", gb.ecc_corrected, ga->ecc_corrected);
    for (const auto& lb : gb.nvlinks) {
      const std::string component = nvlink_component(gb, lb.link);
      const NvLink* la = nullptr;
      for (const auto& l : ga->nvlinks)
        if (l.link == lb.link) la = &l;
      if (!la) continue;
      if (lb.active && !la->active) j.add("nvlink_down", component, "state", "went down during the run");
      rise(component, "nvlink_replay", lb.replay, la->replay);
      rise(component, "nvlink_recovery", lb.recovery, la->recovery);
      rise(component, "nvlink_crc_flit", lb.crc_flit, la->crc_flit);
      rise(component, "nvlink_crc_data", lb.crc_data, la->crc_data);
    }
  }
}

void worst_first(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& x, const Finding& y) { return x.severity > y.severity; });
}

}  // namespace

std::vector<Finding> judge_state(const Snapshot& now, const RuleBook& rules) {
  Judge j(now.host, 0, rules);
  state_findings(now, j);
  for (const auto& l : now.pcie)
    if (l.aer && l.aer->total_fatal > 0)
      j.add("aer_fatal_since_boot", pcie_component(l), "aer_fatal", std::to_string(l.aer->total_fatal) + " since boot");
  return j.take();
}

std::vector<Finding> judge_change(const Snapshot& before, const Snapshot& after, const RuleBook& rules) {
  Judge j(after.host, std::max(0.0, after.taken_at - before.taken_at), rules);
  port_changes(before, after, j);
  pcie_changes(before, after, j);
  gpu_changes(before, after, j);
  // The state of the after snapshot, less what was already so before (a port down before and
  // after was said by the state change rule, or is not this run's doing).
  std::vector<Finding> changes = j.take();
  Judge s(after.host, 0, rules);
  state_findings(after, s);
  Judge was(before.host, 0, rules);
  state_findings(before, was);
  const std::vector<Finding> earlier = was.take();
  for (auto& f : s.take()) {
    bool dup = false;
    for (const auto& c : changes) dup = dup || (c.component == f.component && c.counter == f.counter);
    // A link that went down during the run is said by nvlink_down; the mode it leaves is no news.
    const std::string gpu = f.component.substr(0, f.component.find(" NVLinks"));
    for (const auto& c : changes)
      dup = dup || (f.rule == "nvlink_reduced" && c.rule == "nvlink_down" && c.component.rfind(gpu + " NVLink ", 0) == 0);
    if (dup) continue;
    // XID events are events, not states: one delivered between the snapshots is always new.
    for (const auto& e : earlier)
      f.persistent = f.persistent || (f.counter != "xid" && e.component == f.component && e.counter == f.counter &&
                                       e.detail == f.detail);
    changes.push_back(std::move(f));
  }
  worst_first(changes);
  return changes;
}

std::vector<Finding> rejudge_rises(std::vector<Finding> stored, double seconds, const RuleBook& rules) {
  for (auto& f : stored) {
    const Rule* rule = rules.find(f.counter);
    if (!f.delta || !rule || rule->kind != RuleKind::Rise) {
      if (f.rule.empty()) f.cls = class_of_component(f.component);
      continue;
    }
    f.severity = rule->judge_rise(*f.delta, seconds);
    f.detail = rise_detail(*f.delta, seconds, *rule);
    f.rate = seconds > 0 ? std::optional<double>(static_cast<double>(*f.delta) / seconds) : std::nullopt;
    f.rule = rule->name;
    f.cls = rule->cls;
    f.limit = rule->said();
  }
  worst_first(stored);
  return stored;
}

}  // namespace commsweep::health
