#include "health/join.hpp"

#include <algorithm>

#include "health/report.hpp"

namespace commsweep::health {

namespace {

// A finding of WARN or FAIL: a candidate cause of slow traffic. An INFO (a rise within its
// limit, congestion control at work) is what healthy hardware shows too.
bool suspect(const Finding& f) { return f.severity != Severity::Info; }

const NodeHealth* node_of(const std::vector<NodeHealth>& nodes, const std::string& host) {
  for (const auto& n : nodes)
    if (n.host == host) return &n;
  return nullptr;
}

// Whether anything was read on HOST: a port, a PCIe link or a GPU.
bool read_anything(const NodeHealth* n) {
  return n && (!n->after.ports.empty() || !n->after.pcie.empty() || !n->after.gpus.empty());
}

std::string listed(const std::vector<std::string>& hosts) {
  std::string out;
  for (const auto& h : hosts) out += (out.empty() ? "" : ", ") + h;
  return out;
}

}  // namespace

std::vector<std::string> join_evidence(const std::vector<Finding>& findings,
                                       const std::vector<TrafficEvidence>& evidence,
                                       const std::vector<NodeHealth>& nodes) {
  std::vector<std::string> out;
  for (const auto& e : evidence) {
    std::vector<std::string> quiet, unreadable;
    bool named = false;  // a suspect on one of the hosts: the others' silence is not said
    for (const auto& host : e.hosts) {
      std::vector<std::pair<std::string, std::string>> by_component;  // component -> parts
      for (const auto& f : findings) {
        if (f.host != host || !suspect(f)) continue;
        auto it = std::find_if(by_component.begin(), by_component.end(),
                               [&](const auto& c) { return c.first == f.component; });
        if (it == by_component.end()) it = by_component.insert(by_component.end(), {f.component, ""});
        it->second += (it->second.empty() ? "" : ", ") + describe(f);
      }
      for (const auto& [component, parts] : by_component) out.push_back(host + " " + component + ": " + parts + " during " + e.what);
      named = named || !by_component.empty();
      if (by_component.empty()) (read_anything(node_of(nodes, host)) ? quiet : unreadable).push_back(host);
    }
    if (named || (quiet.empty() && unreadable.empty())) continue;
    std::string line = e.what + ": ";
    if (!quiet.empty()) line += "no hardware counter rose past its limit on " + listed(quiet);
    if (!unreadable.empty())
      line += std::string(quiet.empty() ? "" : "; ") + "nothing could be read on " + listed(unreadable) +
              " (0 RDMA ports, 0 PCIe links, 0 GPUs)";
    out.push_back(line + " (" + e.look_next + ")");
  }
  return out;
}

}  // namespace commsweep::health
