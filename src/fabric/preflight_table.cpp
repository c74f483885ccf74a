#include "fabric/preflight_table.hpp"

#include <algorithm>
#include <sstream>

namespace commsweep::fabric {

namespace {

std::string pad(const std::string& s, size_t width) {
  return s + std::string(s.size() < width ? width - s.size() : 0, ' ');
}

struct Widths {
  size_t host = 4, check = 5;
};

Widths widths(const std::vector<NodeReport>& nodes, bool fails_only) {
  Widths w;
  for (const auto& n : nodes)
    for (const auto& c : n.checks) {
      if (fails_only && c.status != Status::Fail) continue;
      w.host = std::max(w.host, n.host.size());
      w.check = std::max(w.check, c.name.size());
    }
  return w;
}

// fails_only: the brief form, every line a '#' comment so that the sweep tables' readers skip it.
void rows(std::ostringstream& out, const std::vector<NodeReport>& nodes, const Widths& w, bool fails_only) {
  const std::string lead = fails_only ? "# " : "  ";
  const std::string indent = (fails_only ? "#" : " ") + std::string(1 + w.host + 2 + w.check + 2 + 6 + 2, ' ');
  for (const auto& n : nodes)
    for (const auto& c : n.checks) {
      if (fails_only && c.status != Status::Fail) continue;
      out << lead << pad(n.host, w.host) << "  " << pad(c.name, w.check) << "  " << pad(to_string(c.status), 6)
          << "  " << c.reason << "\n";
      if (!c.fix.empty() && c.status != Status::Pass) out << indent << "fix: " << c.fix << "\n";
    }
}

std::string summary(const std::vector<NodeReport>& nodes) {
  const Tally t = tally(nodes);
  std::ostringstream out;
  out << t.pass << " PASS, " << t.warn << " WARN, " << t.fail << " FAIL on " << nodes.size()
      << (nodes.size() == 1 ? " host" : " hosts");
  return out.str();
}

}  // namespace

std::string render_preflight_table(const std::vector<NodeReport>& nodes) {
  std::ostringstream out;
  int ranks = 0;
  for (const auto& n : nodes) ranks += n.ranks;
  out << "# commsweep preflight: " << nodes.size() << (nodes.size() == 1 ? " host, " : " hosts, ") << ranks
      << (ranks == 1 ? " rank\n" : " ranks\n");
  const Widths w = widths(nodes, false);
  out << "# " << pad("host", w.host) << "  " << pad("check", w.check) << "  " << "status  reason\n";
  rows(out, nodes, w, false);
  const Tally t = tally(nodes);
  out << "# " << summary(nodes) << (t.fail ? ": preflight failed (exit code 6)\n" : ": ok\n");
  return out.str();
}

std::string render_preflight_brief(const std::vector<NodeReport>& nodes) {
  std::ostringstream out;
  out << "# preflight: " << summary(nodes) << " (commsweep preflight for details; --no-preflight skips)\n";
  if (tally(nodes).fail) rows(out, nodes, widths(nodes, true), true);
  return out.str();
}

}  // namespace commsweep::fabric
