#include "health/join.hpp"

#include <algorithm>

#include "health/report.hpp"

namespace commsweep::health {

namespace {
// A finding that says something moved or broke on a component (not a setting or a count of
// congestion): a candidate cause of slow traffic.
bool suspect(const Finding& f) {
  if (f.severity != Severity::Info) return true;
  const auto rule = rule_of(f.counter);
  return f.delta && rule && !rule->info_only;
}
}  // namespace

std::vector<std::string> join_evidence(const std::vector<Finding>& findings,
                                       const std::vector<TrafficEvidence>& evidence) {
  std::vector<std::string> out;
  for (const auto& e : evidence) {
    bool any = false;
    for (const auto& host : e.hosts) {
      std::vector<std::pair<std::string, std::string>> by_component;  // component -> parts
      for (const auto& f : findings) {
        if (f.host != host || !suspect(f)) continue;
        auto it = std::find_if(by_component.begin(), by_component.end(),
                               [&](const auto& c) { return c.first == f.component; });
        if (it == by_component.end()) it = by_component.insert(by_component.end(), {f.component, ""});
        it->second += (it->second.empty() ? "" : ", ") + describe(f);
      }
      for (const auto& [component, parts] : by_component) {
        out.push_back(host + " " + component + ": " + parts + " during " + e.what);
        any = true;
      }
    }
    if (!any) {
      std::string hosts;
      for (const auto& h : e.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
      out.push_back(e.what + ": no hardware counter moved on " + hosts +
                    " (look beyond the nodes: switch ports, cables' far ends, congestion)");
    }
  }
  return out;
}

}  // namespace commsweep::health
