#include "nccl_ras/account.hpp"

#include <cstdio>
#include <map>

namespace commsweep::nccl_ras {
namespace {

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "1 communicator group RUNNING, OK" / "2 communicator groups: RUNNING, OK; ABORT, INCOMPLETE".
std::string groups_text(const Status& s) {
  if (s.groups.empty()) return "no communicator data";
  std::map<std::string, int> seen;
  std::vector<std::string> order;
  for (const auto& g : s.groups) {
    const std::string key = g.status + ", " + g.errors;
    if (seen[key]++ == 0) order.push_back(key);
  }
  std::string out = plural(s.groups.size(), "communicator group", "communicator groups") + (order.size() == 1 ? " " : ": ");
  for (std::size_t i = 0; i < order.size(); ++i) out += (i ? "; " : "") + order[i];
  return out;
}

}  // namespace

std::string account_line(const Exchange& x, const Status& s) {
  switch (x.state) {
    case State::NotAsked: return "NCCL RAS: not asked (" + x.why + ")";
    case State::Off: return "NCCL RAS: off (" + x.why + "), not asked";
    case State::Absent: return "NCCL RAS: absent: " + x.why;
    case State::NoAnswer: return "NCCL RAS (" + x.address + "): no answer: " + x.why;
    case State::Failed: return "NCCL RAS (" + x.address + "): " + x.why;
    case State::Answered:
    case State::Partial: break;
  }
  std::string out = "NCCL RAS (" + x.address + (x.state == State::Partial ? ", cut at the deadline" : "") + "): " + groups_text(s);
  if (!s.missing_ranks.empty()) {
    out += "; missing " + std::string(s.missing_ranks.size() == 1 ? "rank " : "ranks ");
    for (std::size_t i = 0; i < s.missing_ranks.size(); ++i) {
      const auto& m = s.missing_ranks[i];
      out += (i ? ", " : "") + std::to_string(m.rank) + (m.detail.empty() ? "" : " (" + m.detail + ")");
    }
  } else if (!s.groups.empty()) {
    out += "; no rank missing";
  }
  for (const auto& m : s.mismatches)
    for (const auto& r : m.behind())
      out += "; rank " + std::to_string(r.rank) + " behind: " + m.collective + " " +
             (r.launched > 0 ? "launched up to operation " + std::to_string(r.launched) : "not launched") +
             " where others reached " + std::to_string(m.most) + (r.detail.empty() ? "" : " (" + r.detail + ")");
  if (!s.missing_processes.empty())
    out += "; " + plural(s.missing_processes.size(), "process", "processes") + " sent no data: " + s.missing_processes.front() +
           (s.missing_processes.size() > 1 ? ", ..." : "");
  if (!s.dead_processes.empty())
    out += "; " + plural(s.dead_processes.size(), "process", "processes") + " dead: " + s.dead_processes.front() +
           (s.dead_processes.size() > 1 ? ", ..." : "");
  return out;
}

std::vector<std::string> account_lines(const Exchange& x, const Status& s, std::size_t max_detail) {
  std::vector<std::string> out{account_line(x, s)};
  for (std::size_t i = 0; i < s.errors.size() && i < max_detail; ++i) out.push_back("  " + s.errors[i]);
  if (s.errors.size() > max_detail) out.push_back("  ... (" + std::to_string(s.errors.size() - max_detail) + " more lines in the JSON's nccl_ras.text)");
  return out;
}

nlohmann::json to_json(const Exchange& x, const Status& s) {
  using nlohmann::json;
  json groups = json::array();
  for (const auto& g : s.groups)
    groups.push_back(json{{"group", g.group}, {"comms", g.comms}, {"nodes", g.nodes}, {"ranks_per_node", g.ranks_per_node},
                          {"ranks_per_comm", g.ranks_per_comm}, {"ranks_in_group", g.ranks_in_group},
                          {"status", g.status}, {"errors", g.errors}});
  json behind = json::array();
  for (const auto& m : s.mismatches)
    for (const auto& r : m.behind())
      behind.push_back(json{{"rank", r.rank}, {"communicator", m.communicator}, {"collective", m.collective},
                            {"launched", r.launched}, {"most", m.most}, {"detail", r.detail}});
  json missing = json::array();
  for (const auto& m : s.missing_ranks)
    missing.push_back(json{{"rank", m.rank}, {"communicator", m.communicator}, {"detail", m.detail}});
  auto optional = [](const std::optional<int>& v) { return v ? json(*v) : json(nullptr); };
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", x.seconds);
  return json{{"state", state_name(x.state)},
              {"address", x.address},
              {"why", x.why},
              {"seconds", std::stod(seconds)},
              {"server_protocol", x.server_protocol},
              {"line", account_line(x, s)},
              {"nccl_version", s.nccl_version},
              {"job", {{"nodes", optional(s.nodes)}, {"processes", optional(s.processes)}, {"gpus", optional(s.gpus)}}},
              {"communicator_groups", groups},
              {"missing_ranks", missing},
              {"ranks_behind", behind},
              {"missing_processes", s.missing_processes},
              {"dead_processes", s.dead_processes},
              {"connections", s.connections},
              {"errors", s.errors},
              {"warnings", s.warnings},
              {"text", x.text}};
}

}  // namespace commsweep::nccl_ras
