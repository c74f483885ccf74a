#include "health/report.hpp"

#include <algorithm>
#include <map>
#include <cstdio>
#include <sstream>

#include "health/health_json.hpp"

namespace commsweep::health {

using nlohmann::json;

std::string describe(const Finding& f) {
  return f.counter + " " + f.detail + (f.persistent ? " (so before the run too)" : "");
}

HealthReport build_report(std::vector<NodeHealth> nodes) {
  HealthReport r;
  for (const auto& n : nodes) {
    auto found = n.before ? judge_change(*n.before, n.after) : judge_state(n.after);
    r.findings.insert(r.findings.end(), found.begin(), found.end());
    if (!n.after.nvml_note.empty()) r.unread.push_back(n.host + ": " + n.after.nvml_note);
    for (const auto& u : n.after.unread) r.unread.push_back(n.host + ": " + u);
    if (n.before) r.seconds = std::max(r.seconds, n.after.taken_at - n.before->taken_at);
  }
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  r.nodes = std::move(nodes);
  return r;
}

namespace {

// One line per (host, component): the worst severity and every moved counter.
struct Line {
  Severity severity = Severity::Info;
  std::vector<std::string> parts;
};

std::vector<std::pair<std::string, Line>> lines_by_component(const std::vector<Finding>& findings) {
  std::vector<std::pair<std::string, Line>> out;
  for (const auto& f : findings) {
    const std::string key = f.host + " " + f.component;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == key; });
    if (it == out.end()) it = out.insert(out.end(), {key, Line{}});
    it->second.severity = std::max(it->second.severity, f.severity);
    it->second.parts.push_back(describe(f));
  }
  return out;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// At most this many unread lines in the block, each naming at most kHostsNamed nodes: the
// JSON holds them all (a thousand pods without /sys/class/infiniband are one line).
constexpr std::size_t kUnreadLines = 8;
constexpr std::size_t kHostsNamed = 4;

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

std::string render_block(const HealthReport& r) {
  int counts[3] = {0, 0, 0};
  const auto lines = lines_by_component(r.findings);
  for (const auto& [key, line] : lines) ++counts[static_cast<int>(line.severity)];
  std::ostringstream out;
  out << "# Health: " << r.nodes.size() << (r.nodes.size() == 1 ? " node" : " nodes") << ", ";
  if (r.seconds > 0) {
    out.precision(1);
    out << std::fixed << "before/after " << r.seconds << " s";
  } else {
    out << "one snapshot";
  }
  std::size_t ports = 0, links = 0, gpus = 0;
  for (const auto& n : r.nodes) ports += n.after.ports.size(), links += n.after.pcie.size(), gpus += n.after.gpus.size();
  out << " (" << ports << " RDMA ports, " << links << " PCIe links, " << gpus << " GPUs): ";
  if (counts[2] + counts[1] == 0) out << "OK";
  else out << counts[2] << " FAIL, " << counts[1] << " WARN";
  if (counts[0] > 0) out << ", " << counts[0] << " INFO";
  if (!r.unread.empty()) out << "; " << r.unread.size() << " item(s) not read";
  out << "\n";
  for (const auto& [key, line] : lines)
    if (line.severity != Severity::Info) out << "#   " << to_string(line.severity) << " " << key << ": " << joined(line.parts) << "\n";
  const auto groups = unread_by_reason(r.unread);
  for (std::size_t i = 0; i < groups.size() && i < kUnreadLines; ++i) {
    out << "#   not read on ";
    const auto& hosts = groups[i].second;
    for (std::size_t h = 0; h < hosts.size() && h < kHostsNamed; ++h) out << (h ? ", " : "") << hosts[h];
    if (hosts.size() > kHostsNamed) out << " and " << hosts.size() - kHostsNamed << " more nodes";
    out << ": " << groups[i].first << "\n";
  }
  if (groups.size() > kUnreadLines) out << "#   not read: " << groups.size() - kUnreadLines << " more (in the JSON)\n";
  for (const auto& v : r.verdict) out << "# Evidence: " << v << "\n";
  return out.str();
}

json report_json(const HealthReport& r) {
  json nodes = json::array();
  for (const auto& n : r.nodes) {
    json nj{{"host", n.host}, {"after", to_json(n.after)}};
    if (n.before) nj["before"] = to_json(*n.before);
    nodes.push_back(nj);
  }
  json findings = json::array();
  for (const auto& f : r.findings) findings.push_back(to_json(f));
  return json{{"seconds", r.seconds}, {"nodes", nodes}, {"findings", findings}, {"unread", r.unread},
              {"verdict", r.verdict}};
}

HealthReport report_from_json(const json& j) {
  HealthReport r;
  try {
    r.seconds = j.value("seconds", 0.0);
    for (const auto& f : j.at("findings")) r.findings.push_back(finding_from_json(f));
    r.unread = j.value("unread", std::vector<std::string>{});
    r.verdict = j.value("verdict", std::vector<std::string>{});
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed \"health\": ") + e.what());
  }
  return r;
}

namespace {
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out;
}
}  // namespace

std::string render_prometheus(const HealthReport& r) {
  std::ostringstream out;
  int counts[3] = {0, 0, 0};
  for (const auto& f : r.findings) ++counts[static_cast<int>(f.severity)];
  out << "# HELP commsweep_health_findings Hardware health findings of the run, by severity.\n"
         "# TYPE commsweep_health_findings gauge\n";
  for (Severity s : {Severity::Fail, Severity::Warn, Severity::Info})
    out << "commsweep_health_findings{severity=\"" << to_string(s) << "\"} " << counts[static_cast<int>(s)] << "\n";
  out << "# HELP commsweep_health_unread Health items that could not be read.\n"
         "# TYPE commsweep_health_unread gauge\ncommsweep_health_unread " << r.unread.size() << "\n";
  out << "# HELP commsweep_health_counter_delta Rise of a hardware error counter during the run.\n"
         "# TYPE commsweep_health_counter_delta gauge\n";
  for (const auto& f : r.findings)
    if (f.delta)
      out << "commsweep_health_counter_delta{host=\"" << label(f.host) << "\",component=\"" << label(f.component)
          << "\",counter=\"" << label(f.counter) << "\",severity=\"" << to_string(f.severity) << "\"} " << *f.delta << "\n";
  out << "# HELP commsweep_health_finding A health finding without a count (state, width, saturation, XID).\n"
         "# TYPE commsweep_health_finding gauge\n";
  for (const auto& f : r.findings)
    if (!f.delta)
      out << "commsweep_health_finding{host=\"" << label(f.host) << "\",component=\"" << label(f.component)
          << "\",counter=\"" << label(f.counter) << "\",severity=\"" << to_string(f.severity) << "\"} 1\n";
  return out.str();
}

}  // namespace commsweep::health

namespace commsweep::health {

namespace {
std::string gpu_line(const GpuHealth& g) {
  std::ostringstream out;
  out << "GPU " << g.index << " " << g.name << " " << g.pci_bus_id << ":";
  if (g.temperature_c) out << " " << *g.temperature_c << " C,";
  if (g.pcie_gen)
    out << " PCIe gen" << *g.pcie_gen << " x" << g.pcie_width.value_or(0) << " of gen" << g.pcie_max_gen.value_or(0)
        << " x" << g.pcie_max_width.value_or(0) << ",";
  int active = 0;
  for (const auto& l : g.nvlinks) active += l.active ? 1 : 0;
  out << " NVLink " << active << "/" << g.nvlinks.size() << " active";
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
      out << "#   " << p.component() << " [" << p.pci_address << "]: " << p.state << " " << p.phys_state << ", "
          << (p.rate.empty() ? "rate ?" : p.rate) << ", " << p.link_layer << ", " << p.counters.size() << " counters, "
          << p.hw_counters.size() << " hw_counters\n";
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
