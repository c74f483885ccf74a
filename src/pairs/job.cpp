// `commsweep pairs` on this job (pairs/job.hpp).
#include "pairs/job.hpp"

#include <utility>

#include "pairs/schedule.hpp"
#include "core/error.hpp"

namespace commsweep::pairs {

std::vector<int> node_of_every_rank(const World& world) {
  std::vector<int> out;
  for (int r = 0; r < world.size(); ++r) out.push_back(world.node_of(r));
  return out;
}

void require_nodes(const World& world) {
  if (world.node_count() >= 2) return;
  throw_usage("pairs: this job has 1 node (" + world.host() + ", " + std::to_string(world.size()) +
              " ranks): pairs needs at least 2 (nodes are hosts, or ranks grouped by NCCL_HOSTID: "
              "scripts/emulate-nodes.sh emulates nodes on one machine)");
}

std::string from_rank0(World& world, double timeout_s, const std::function<std::string()>& read) {
  std::string text, error;
  if (world.rank() == 0) {
    try {
      text = read();
    } catch (const Error& e) {
      error = e.what();
    }
  }
  const Phase phase{"pairs setup (broadcast)", Deadline::after(timeout_s)};
  for (std::string* s : {&error, &text}) {
    long long size = static_cast<long long>(s->size());
    world.broadcast(&size, sizeof size, 0, phase);
    s->resize(static_cast<std::size_t>(size));
    if (size > 0) world.broadcast(s->data(), static_cast<int>(size), 0, phase);
  }
  if (!error.empty()) throw_usage(error);
  return text;
}

std::vector<Node> describe_nodes(const World& world, const report::Provenance& provenance) {
  std::vector<Node> nodes;
  for (const auto& ranks : ranks_by_node(node_of_every_rank(world))) {
    Node n;
    n.name = world.hosts_by_rank()[ranks.front()];
    n.ranks = ranks;
    for (int r : ranks) {
      n.pci_bus_ids.push_back(r < static_cast<int>(provenance.gpus.size()) ? provenance.gpus[r].pci_bus_id : "-");
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

judge::Outcomes outcomes_of(const PairsRun& run, const Analysis& a) {
  judge::Outcomes o = judge::run_ending(a.wrong_total, run.complete, !run.health_fail.empty());
  o.slow = !a.slow.empty();
  return o;
}

}  // namespace commsweep::pairs
