// The '#' block printed under a command's tables: readable at 8 GPUs x 18 links x many nodes.
// A healthy node is the summary line (and a "not read" line where something was not there);
// findings are grouped per node and component class; INFO stays in the JSON unless verbose.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>

#include "health/nvlink_mode.hpp"
#include "health/report.hpp"

namespace commsweep::health {

namespace {

// At most this many finding lines, each naming at most kComponentsPerLine components, and at
// most kUnreadLines "not read" lines, each naming at most kHostsNamed nodes: the JSON holds
// them all (a thousand pods without /sys/class/infiniband are one line).
constexpr std::size_t kFindingLines = 16;
constexpr std::size_t kComponentsPerLine = 6;
constexpr std::size_t kUnreadLines = 8;
constexpr std::size_t kHostsNamed = 4;

std::string hosts_text(const std::vector<std::string>& hosts) {
  std::string out;
  for (std::size_t h = 0; h < hosts.size() && h < kHostsNamed; ++h) out += (h ? ", " : "") + hosts[h];
  if (hosts.size() > kHostsNamed) out += " and " + std::to_string(hosts.size() - kHostsNamed) + " more nodes";
  return out;
}

// "4.2" for a rate without its unit (rate_text's figures).
std::string figure(double v) {
  std::string t = rate_text(v);
  return t.substr(0, t.size() - 2);
}

// What was read on the nodes and the rates seen, summed and ranged over them.
struct Summary {
  std::size_t gpus = 0, nvlinks = 0, nvlinks_active = 0;
  std::vector<std::pair<std::string, std::size_t>> modes;  // each NVLink mode and its GPUs, first seen first
  bool gpus_read = false;
  double crc_low = std::numeric_limits<double>::infinity(), crc_high = -1;  // per link, per second
  std::uint64_t replay = 0, recovery = 0;
  std::size_t ports = 0, ports_active = 0, pcie = 0, pcie_narrow = 0;
  std::uint64_t port_errors = 0, aer = 0;
  bool any_aer = false;
};

std::uint64_t rise_of(const std::optional<std::uint64_t>& b, const std::optional<std::uint64_t>& a) {
  return b && a && *a > *b ? *a - *b : 0;
}

void add_gpus(const NodeHealth& n, double seconds, Summary& s) {
  s.gpus_read = s.gpus_read || n.after.nvml_note.empty();
  s.gpus += n.after.gpus.size();
  for (const auto& g : n.after.gpus) {
    s.nvlinks += g.nvlinks.size();
    for (const auto& l : g.nvlinks) s.nvlinks_active += l.active ? 1 : 0;
    if (!g.nvlinks.empty()) {
      const std::string mode = nvlink_mode(g).text();
      auto it = std::find_if(s.modes.begin(), s.modes.end(), [&](const auto& m) { return m.first == mode; });
      if (it == s.modes.end()) s.modes.emplace_back(mode, 1);
      else ++it->second;
    }
    if (!n.before) continue;
    for (const auto& gb : n.before->gpus) {
      if (!gb.same_gpu(g)) continue;
      for (const auto& lb : gb.nvlinks)
        for (const auto& la : g.nvlinks) {
          if (la.link != lb.link) continue;
          s.replay += rise_of(lb.replay, la.replay);
          s.recovery += rise_of(lb.recovery, la.recovery);
          if (seconds <= 0 || (!la.crc_data && !la.crc_flit)) continue;
          const double rate = static_cast<double>(std::max(rise_of(lb.crc_data, la.crc_data), rise_of(lb.crc_flit, la.crc_flit))) / seconds;
          s.crc_low = std::min(s.crc_low, rate);
          s.crc_high = std::max(s.crc_high, rate);
        }
    }
  }
}

void add_ports(const NodeHealth& n, const RuleBook& rules, Summary& s) {
  s.ports += n.after.ports.size();
  for (const auto& p : n.after.ports) {
    s.ports_active += p.state == "ACTIVE" ? 1 : 0;
    if (!n.before) continue;
    for (const auto& pb : n.before->ports) {
      if (pb.device != p.device || pb.port != p.port) continue;
      // The rises of the error counters (those a rule can warn or fail on).
      auto errors = [&](const std::vector<Counter>& before, const std::vector<Counter>& after) {
        for (const auto& c : after) {
          const Rule* rule = rules.find(c.name);
          if (!rule || rule->kind != RuleKind::Rise || rule->severity == Severity::Info) continue;
          for (const auto& cb : before)
            if (cb.name == c.name && !c.saturated) s.port_errors += rise_of(cb.value, c.value);
        }
      };
      errors(pb.counters, p.counters);
      errors(pb.hw_counters, p.hw_counters);
    }
  }
}

void add_pcie(const NodeHealth& n, Summary& s) {
  s.pcie += n.after.pcie.size();
  for (const auto& l : n.after.pcie) {
    s.pcie_narrow += l.current_width > 0 && l.current_width < l.max_width ? 1 : 0;
    s.any_aer = s.any_aer || l.aer.has_value();
    if (!n.before || !l.aer) continue;
    for (const auto& lb : n.before->pcie)
      if (lb.address == l.address && lb.aer)
        s.aer += rise_of(lb.aer->total_correctable, l.aer->total_correctable) +
                 rise_of(lb.aer->total_nonfatal, l.aer->total_nonfatal) + rise_of(lb.aer->total_fatal, l.aer->total_fatal);
  }
}

// "18 of 18 links at NVLink 4.0, 25 GB/s each" when every GPU is in one mode; else each mode
// with its GPUs: "7 GPUs 18 of 18 links ...; 1 GPU reduced: 12 of 18 links active (...)".
std::string modes_text(const std::vector<std::pair<std::string, std::size_t>>& modes) {
  if (modes.size() == 1) return modes.front().first;
  std::string out;
  for (const auto& [mode, gpus] : modes)
    out += (out.empty() ? "" : "; ") + std::to_string(gpus) + (gpus == 1 ? " GPU " : " GPUs ") + mode;
  return out;
}

std::string summary_text(const HealthReport& r) {
  Summary s;
  for (const auto& n : r.nodes) {
    const double seconds = n.before ? n.after.taken_at - n.before->taken_at : 0;
    add_gpus(n, seconds, s);
    add_ports(n, r.rules, s);
    add_pcie(n, s);
  }
  const bool window = r.seconds > 0;
  std::ostringstream out;
  if (!s.gpus_read) {
    out << "GPUs not read";
  } else {
    out << s.gpus << (s.gpus == 1 ? " GPU" : " GPUs");
    if (s.nvlinks == 0) out << ", no NVLink";
    else out << ", " << s.nvlinks_active << "/" << s.nvlinks << " NVLinks active (" << modes_text(s.modes) << ")";
    if (s.crc_high >= 0) {
      const std::string low = figure(s.crc_low), high = figure(s.crc_high);
      out << ", CRC " << (low == high ? high : low + "-" + high) << "/s per link (" << r.rules.at("nvlink_crc_data").limit_text() << ")";
    }
    if (window && s.nvlinks > 0) out << ", replay " << s.replay << ", recovery " << s.recovery;
  }
  out << "; " << s.ports << (s.ports == 1 ? " RDMA port" : " RDMA ports");
  if (s.ports > 0) out << (s.ports_active == s.ports ? " active" : ", " + std::to_string(s.ports_active) + " active");
  if (s.ports > 0 && window) out << ", error counters +" << s.port_errors;
  out << "; " << s.pcie << (s.pcie == 1 ? " PCIe link" : " PCIe links");
  if (s.pcie > 0) out << (s.pcie_narrow == 0 ? " at full width" : ", " + std::to_string(s.pcie_narrow) + " narrow");
  if (s.any_aer && window) out << ", AER +" << s.aer;
  return out.str();
}

std::string verdict_text(const HealthReport& r) {
  std::size_t read = 0;
  for (const auto& n : r.nodes) read += n.after.ports.size() + n.after.pcie.size() + n.after.gpus.size();
  // Nothing read is not a healthy node: it was not looked at (the "not read" lines say why).
  if (read == 0 && r.findings.empty()) return "nothing could be read";
  int fail = 0, warn = 0;
  std::vector<std::string> hosts;
  for (const auto& f : r.findings) {
    if (f.severity == Severity::Info) continue;
    ++(f.severity == Severity::Fail ? fail : warn);
    if (std::find(hosts.begin(), hosts.end(), f.host) == hosts.end()) hosts.push_back(f.host);
  }
  if (fail + warn == 0) return "OK";
  return std::to_string(fail) + " FAIL, " + std::to_string(warn) + " WARN on " + hosts_text(hosts);
}

// The component as its group's line names it: "GPU 2 link 5" under NVLink, "0000:1a:00.0 (NIC
// mlx5_0)" under PCIe.
std::string short_component(const Finding& f) {
  std::string c = f.component;
  if (f.cls == RuleClass::Pcie && c.rfind("PCIe ", 0) == 0) c = c.substr(5);
  const auto at = c.find(" NVLink ");
  if (f.cls == RuleClass::NvLink && at != std::string::npos) c.replace(at, 8, " link ");
  return c;
}

// One line per (severity class, host, group): its components, each with its moved counters.
struct Line {
  Severity severity = Severity::Info;
  std::string host, group;
  std::vector<std::pair<std::string, std::vector<std::string>>> components;  // component -> parts
};

std::vector<Line> finding_lines(const std::vector<Finding>& findings) {
  std::vector<Line> lines;
  for (const auto& f : findings) {
    if (f.severity == Severity::Info) continue;
    const std::string group = group_name(f.cls);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.host == f.host && l.group == group; });
    if (it == lines.end()) it = lines.insert(lines.end(), Line{f.severity, f.host, group, {}});
    it->severity = std::max(it->severity, f.severity);
    const std::string component = short_component(f);
    auto c = std::find_if(it->components.begin(), it->components.end(), [&](const auto& e) { return e.first == component; });
    if (c == it->components.end()) c = it->components.insert(it->components.end(), {component, {}});
    c->second.push_back(describe(f));
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.severity > b.severity; });
  return lines;
}

std::string line_text(const Line& l) {
  std::string out = "#   " + to_string(l.severity) + " " + l.host + " " + l.group + ": ";
  for (std::size_t i = 0; i < l.components.size() && i < kComponentsPerLine; ++i) {
    out += (i ? "; " : "") + l.components[i].first + " ";
    for (std::size_t p = 0; p < l.components[i].second.size(); ++p) out += (p ? ", " : "") + l.components[i].second[p];
  }
  if (l.components.size() > kComponentsPerLine)
    out += "; and " + std::to_string(l.components.size() - kComponentsPerLine) + " more (in the JSON)";
  return out + "\n";
}

// "host: why" lines grouped by why, in the order first seen.
std::vector<std::pair<std::string, std::vector<std::string>>> unread_by_reason(const std::vector<std::string>& unread) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& line : unread) {
    const auto colon = line.find(": ");
    const std::string host = colon == std::string::npos ? "?" : line.substr(0, colon);
    const std::string why = colon == std::string::npos ? line : line.substr(colon + 2);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == why; });
    if (it == groups.end()) it = groups.insert(groups.end(), {why, {}});
    it->second.push_back(host);
  }
  return groups;
}

}  // namespace

std::string render_block(const HealthReport& r, bool verbose) {
  std::ostringstream out;
  out << "# Health: ";
  if (r.nodes.size() == 1) out << r.nodes[0].host;
  else out << r.nodes.size() << " nodes";
  if (r.seconds > 0) {
    out.precision(1);
    out << std::fixed << ", before/after " << r.seconds << " s: ";
  } else {
    out << ", one snapshot: ";
  }
  out << summary_text(r) << ": " << verdict_text(r) << "\n";
  if (verbose) {
    for (const auto& f : r.findings)
      out << "#   " << to_string(f.severity) << " " << f.host << " " << group_name(f.cls) << " " << f.component << ": "
          << describe(f) << "\n";
  } else {
    const auto lines = finding_lines(r.findings);
    for (std::size_t i = 0; i < lines.size() && i < kFindingLines; ++i) out << line_text(lines[i]);
    if (lines.size() > kFindingLines)
      out << "#   and " << lines.size() - kFindingLines << " more lines of findings (in the JSON)\n";
  }
  const auto groups = unread_by_reason(r.unread);
  for (std::size_t i = 0; i < groups.size() && i < kUnreadLines; ++i)
    out << "#   not read on " << hosts_text(groups[i].second) << ": " << groups[i].first << "\n";
  if (groups.size() > kUnreadLines) out << "#   not read: " << groups.size() - kUnreadLines << " more (in the JSON)\n";
  for (const auto& v : r.verdict) out << "# Evidence: " << v << "\n";
  return out.str();
}

namespace {
std::string gpu_line(const GpuHealth& g) {
  std::ostringstream out;
  out << "GPU " << g.index << " " << g.name << " " << g.pci_bus_id << ":";
  if (g.temperature_c) out << " " << *g.temperature_c << " C,";
  if (g.pcie_gen)
    out << " PCIe gen" << *g.pcie_gen << " x" << g.pcie_width.value_or(0) << " of gen" << g.pcie_max_gen.value_or(0)
        << " x" << g.pcie_max_width.value_or(0) << ",";
  out << (g.nvlinks.empty() ? " no NVLink" : " NVLink " + nvlink_mode(g).text());
  std::uint64_t crc = 0, replay = 0, recovery = 0;
  for (const auto& l : g.nvlinks) {
    crc += l.crc_flit.value_or(0) + l.crc_data.value_or(0);
    replay += l.replay.value_or(0);
    recovery += l.recovery.value_or(0);
  }
  if (!g.nvlinks.empty()) out << " (CRC " << crc << ", replay " << replay << ", recovery " << recovery << ")";
  if (g.pcie_replay) out << ", PCIe replay " << *g.pcie_replay;
  if (g.ecc_corrected || g.ecc_uncorrected)
    out << ", ECC volatile " << g.ecc_corrected.value_or(0) << " corrected " << g.ecc_uncorrected.value_or(0) << " uncorrected";
  if (g.remap_pending) out << ", remap pending " << (*g.remap_pending ? "yes" : "no");
  if (g.clock_event_reasons) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(*g.clock_event_reasons));
    out << ", clock event reasons " << hex;
  }
  return out.str();
}
}  // namespace

std::string render_inventory(const HealthReport& r) {
  std::ostringstream out;
  for (const auto& n : r.nodes) {
    const Snapshot& s = n.after;
    out << "# " << n.host << ": " << s.ports.size() << " RDMA ports, " << s.pcie.size() << " PCIe links (GPUs and NICs), "
        << s.gpus.size() << " GPUs" << (s.nvml_note.empty() ? "" : " (" + s.nvml_note + ")") << "\n";
    for (const auto& p : s.ports)
      out << "#   " << p.component() << " [" << p.pci_address << (p.nic_model.empty() ? "" : ", " + p.nic_model)
          << "]: " << p.state << " " << p.phys_state << ", " << (p.rate.empty() ? "rate ?" : p.rate) << ", "
          << p.link_layer << ", " << p.counters.size() << " counters, " << p.hw_counters.size() << " hw_counters\n";
    for (const auto& l : s.pcie) {
      out << "#   PCIe " << l.address << " (" << l.role << "): " << l.current_speed << " x" << l.current_width << " of "
          << l.max_speed << " x" << l.max_width;
      if (l.aer)
        out << ", AER correctable " << l.aer->total_correctable << " nonfatal " << l.aer->total_nonfatal << " fatal "
            << l.aer->total_fatal;
      else
        out << ", no AER counters";
      out << "\n";
    }
    for (const auto& g : s.gpus) out << "#   " << gpu_line(g) << "\n";
  }
  return out.str();
}

}  // namespace commsweep::health
