#include "run/preflight_gather.hpp"

#include <iostream>

#include <nlohmann/json.hpp>

#include "fabric/preflight_table.hpp"
#include "runtime/world.hpp"

namespace commsweep {

std::vector<fabric::NodeReport> gather_preflight(World& world, const fabric::PreflightOptions& options, char** envp,
                                                 double timeout_s, const std::string& bind_note) {
  std::string mine;
  if (world.local_rank() == 0) {
    fabric::NodeReport node = fabric::check_node(options, envp);
    node.host = world.host();
    node.ranks = world.local_size();
    if (!bind_note.empty()) node.checks.push_back(fabric::pass("bind", bind_note));
    mine = fabric::to_json(node).dump();
  }
  const auto all = world.gather(mine, Phase{"preflight gather", Deadline::after(timeout_s)});
  std::vector<fabric::NodeReport> nodes;
  for (const auto& text : all)
    if (!text.empty()) nodes.push_back(fabric::node_from_json(nlohmann::json::parse(text)));
  return nodes;
}

int broadcast_preflight_verdict(World& world, int code, double timeout_s) {
  world.broadcast(&code, sizeof code, 0, Phase{"preflight verdict", Deadline::after(timeout_s)});
  return code;
}

std::vector<std::string> preflight_fail_lines(const std::vector<fabric::NodeReport>& nodes) {
  std::vector<std::string> lines;
  for (const auto& n : nodes)
    for (const auto& c : n.checks)
      if (c.status == fabric::Status::Fail) lines.push_back(n.host + " preflight " + c.name + ": " + c.reason);
  return lines;
}

std::vector<std::string> run_brief_preflight(World& world, char** envp, double timeout_s) {
  fabric::PreflightOptions options;
  options.brief = true;
  const auto nodes = gather_preflight(world, options, envp, timeout_s, "");
  if (world.rank() != 0) return {};
  std::cout << fabric::render_preflight_brief(nodes) << std::flush;
  return preflight_fail_lines(nodes);
}

}  // namespace commsweep
