#include "pairs/settings.hpp"

#include <filesystem>
#include <limits>
#include <stdexcept>

#include "faults/catalog.hpp"
#include "plan/planners.hpp"
#include "core/error.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep::pairs {
namespace {

using settings::Given;
using settings::Origins;
using settings::Spec;
using settings::Type;
using settings::Value;
using Config = PairsSettings;

void apply_fault(Config& o, const Value& v, const Given& g) {
  const faults::Planted p = faults::parse_fault("pairs", v.text, g.where);
  if (p.name == "slow-rank") o.slow_rank = p.rank;
  if (p.name == "slow-leaf") o.slow_leaf = p.leaf;
  if (p.name == "hang") {
    o.hang_rank = p.rank;
    o.hang_round = p.round;
  }
}

// --plan's flags go together.
void finish(Config& o, const Origins& origins) {
  const bool nodes = origins.find("nodes") != nullptr;
  if ((nodes || o.per_leaf || o.leaves_per_block) && !o.plan) throw_usage("--nodes, --per-leaf and --leaves-per-block go with --plan");
  if (o.plan && nodes == !o.topology_files.empty()) throw_usage("--plan needs --nodes N or --topology FILE (one of them)");
  if ((o.per_leaf || o.leaves_per_block) && !nodes) throw_usage("--per-leaf and --leaves-per-block go with --plan --nodes N");
  if (o.leaves_per_block && !o.per_leaf) throw_usage("--leaves-per-block needs --per-leaf");
}

constexpr auto entry = &settings::entry<Config>;

// A file named in a suite is relative to the suite's folder, so that the two travel together.
std::string beside(const Given& g, const std::string& path) {
  if (!g.from_document() || path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(g.folder) / path).string();
}

int to_int(const Value& v) { return static_cast<int>(v.whole); }

settings::Table<Config> make_table() {
  const char* shown = kOptionsSection;
  const char* hidden = kHiddenSection;
  settings::Table<Config> t{"pairs", {
      entry("size", 's', "size", settings::size(), "64M",
            "bytes each way per rail and exchange (K, M, G, or Ki, Mi, Gi: powers of 1024); rounded down to whole floats", shown,
            [](Config& o, const Value& v, const Given& g) {
              if (v.count < 4) throw_usage(g.where + ": " + std::to_string(v.count) + " B is less than one float (4 B)");
              o.bytes = v.count;
            }),
      entry("iters", 'n', "iters", settings::whole(1, 1 << 24), "20", "timed exchanges per round", shown,
            [](Config& o, const Value& v, const Given&) { o.iters = to_int(v); }),
      entry("warmup_iters", 'w', "warmup", settings::whole(0, 1 << 24), "5", "untimed exchanges per round before them", shown,
            [](Config& o, const Value& v, const Given&) { o.warmup = to_int(v); }),
      entry("check", 'c', "check", settings::whole(0, 1000), "1", "verify the received data bit-exact N times per round (0: off)",
            shown, [](Config& o, const Value& v, const Given&) { o.check = to_int(v); }),
      entry("slow-below", 0, "slow_below", settings::number(0, 1, true), "0.8",
            "a pair is slow below this fraction of the median rail (0 < F <= 1)", shown,
            [](Config& o, const Value& v, const Given&) { o.slow_fraction = v.number; }),
      entry("slow-below-top-third", 0, "slow_below_top_third", settings::number(0, 1, true), "0.1",
            "a pair is also slow below this fraction of the top-third pair, the slowest of the fastest third "
            "(0 < F <= 1): with 2 to 4 nodes a bad node's rails are the median, the top-third pair stays healthy",
            shown, [](Config& o, const Value& v, const Given&) { o.slow_fraction_of_top_third = v.number; }),
      entry("seed", 0, "seed", settings::unsigned64(), std::nullopt, "seed of the data pattern (and of sample:K's draw)", shown,
            [](Config& o, const Value& v, const Given&) { o.seed = v.count; }),
      entry("pattern", 0, "pattern", settings::text(), "all-pairs",
            "which pairs: all-pairs, intra-leaf, cross-leaf, bisection, sample:K (see below)", shown,
            [](Config& o, const Value& v, const Given& g) {
              try {
                plan::parse_pattern(v.text);
              } catch (const std::invalid_argument& e) {
                throw_usage(g.where + ": " + e.what());
              }
              o.pattern = v.text;
            }),
      entry("topology", 0, "topology", settings::list_of(settings::text(), false), std::nullopt,
            "the leaf (and block) of every node: kubectl get nodes -o json|yaml (OCI RDMA or "
            "network.topology.kubernetes.io labels, or a Kueue Topology in the same input), Volcano HyperNodes, or "
            "NODE LEAF [BLOCK] lines; repeatable",
            shown, [](Config& o, const Value& v, const Given& g) {
              for (const auto& item : v.items) o.topology_files.push_back(beside(g, item.text));
            }),
      entry("adaptive", 0, "adaptive", settings::presence(), std::nullopt,
            "after the pattern, re-test the nodes of slow pairs until each finding names one node or one leaf's uplinks",
            shown, settings::into(&Config::adaptive)),
      entry("max-minutes", 0, "max_minutes", settings::number(0, 1e6), "0", "refuse a plan predicted to take longer (0: no limit)",
            shown, [](Config& o, const Value& v, const Given&) { o.max_minutes = v.number; }),
      entry("cost-from", 0, "cost_from", settings::text(), std::nullopt,
            "fit the cost model to this pairs results file (--json of an earlier run)", shown,
            [](Config& o, const Value& v, const Given& g) { o.cost_from = beside(g, v.text); }),
      entry("plan", 0, "", settings::presence(), std::nullopt,
            "print the plan (rounds, pairs, bytes, predicted time) and exit; no MPI, no mpirun", shown,
            settings::into(&Config::plan)),
      entry("nodes", 0, "", settings::whole(2, 1 << 16), std::nullopt, "--plan: this many nodes (without --topology)", shown,
            [](Config& o, const Value& v, const Given&) { o.plan_nodes = to_int(v); }),
      entry("per-leaf", 0, "", settings::whole(1, 1 << 16), std::nullopt,
            "--plan --nodes: a synthetic fabric of leaves of this many nodes", shown,
            [](Config& o, const Value& v, const Given&) { o.per_leaf = to_int(v); }),
      entry("leaves-per-block", 0, "", settings::whole(1, 1 << 16), std::nullopt,
            "--plan --nodes --per-leaf: this many leaves per block", shown,
            [](Config& o, const Value& v, const Given&) { o.leaves_per_block = to_int(v); }),
      entry("gpus-per-node", 0, "", settings::whole(1, 1024), "8", "--plan: rails per node (one GPU and NIC each)", shown,
            [](Config& o, const Value& v, const Given&) { o.gpus_per_node = to_int(v); }),
      // Testing only: slow-rank:R sleeps after each exchange (faults/slowed_backend.hpp), a planted
      // slow rail; hang:R@ROUND stays silent from that round on.
      settings::entry_of<Config>(settings::shared::fault("testing only: " + faults::fault_forms("pairs"), hidden),
                                 apply_fault),
      entry("fault-slowdown", 0, "", settings::number(2, 1000), std::nullopt,
            "testing only: how many times slower a planted slow exchange is", hidden,
            [](Config& o, const Value& v, const Given&) { o.fault_slowdown = v.number; }),
  }, finish};
  for (auto& s : t.settings) s.spec.repeatable = s.spec.flag == "topology";
  return t;
}

}  // namespace

const settings::Table<PairsSettings>& pairs_settings() {
  static const settings::Table<PairsSettings> table = make_table();
  return table;
}

}  // namespace commsweep::pairs
