// What `commsweep pairs` measured, as typed records: the nodes, the rounds, and per pair of
// nodes one rail per common local rank. Printers (render.hpp, pairs_json.hpp) and the outlier
// rule (outliers.hpp) work on these and know nothing of MPI, NCCL or CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pairs/schedule.hpp"
#include "plan/adaptive.hpp"
#include "report/gpu_window.hpp"
#include "topology/network/topology.hpp"
#include "report/result.hpp"

namespace commsweep::pairs {

struct Node {
  std::string name;                      // "host", or "host/HOSTID" for an emulated node
  std::vector<int> ranks;                // in rank order; index = local rank on the node
  std::vector<std::string> pci_bus_ids;  // the GPU of each of those ranks ("-": none)
};

// Local rank k of node a exchanging with local rank k of node b: one GPU / NIC rail.
struct Rail {
  int local_rank = 0;
  int rank_a = 0;
  int rank_b = 0;
  double time_us_a = 0;  // per exchange, as each side timed it
  double time_us_b = 0;
  double time_us = 0;    // the slower side: the exchange is done when both are
  double gbps = 0;       // bytes / time_us, each way (both directions run at once)
  std::optional<std::uint64_t> wrong;  // elements wrong at either end; none with -c 0
};

struct PairMeasurement {
  int round = 0;  // 0-based
  int node_a = 0;
  int node_b = 0;
  std::vector<Rail> rails;
  // The GPU state of its rails' ranks over the round's exchange (report/gpu_window.hpp: read
  // before it and after it, never inside); empty where none was read and in older files. Above
  // kWindowsKeptNodes nodes only the windows with a throttle are kept (add_round).
  std::vector<report::GpuWindow> gpu_state;
};

struct Settings {
  std::uint64_t bytes = 0;  // each way, per rail and exchange
  std::uint64_t count = 0;  // elements of `type`
  std::string type = "float";
  int iters = 0;
  int warmup = 0;
  int check = 0;
  double slow_fraction = 0.8;  // a pair is slow below this fraction of the median rail
  double slow_fraction_of_top_third = 0.1;  // ... or below this fraction of the top-third pair
};

struct PairsRun {
  report::Provenance provenance;
  Settings settings;
  std::vector<Node> nodes;
  std::string pattern = "all-pairs";   // the planner of the first rounds (plan/planners.hpp)
  plan::Topology topology;             // the nodes' leaves and blocks (flat when none was given)
  std::vector<Round> rounds;           // the pattern's, then --adaptive's follow-up rounds
  int planned_rounds = 0;              // how many of them the pattern planned
  std::vector<double> round_wall_s;    // rank 0's wall time of each round measured
  std::vector<PairMeasurement> pairs;  // in the order measured
  std::vector<plan::Finding> findings; // --adaptive: what the follow-up named
  bool complete = true;
  std::string interrupted_by;          // when !complete: "SIGTERM", "SIGINT", "timeout" or "error"
  std::string failure;                 // a run ended by a failure: the rank and what happened
  // The health snapshots' FAIL findings around the run, one line each (health/report.hpp,
  // fail_lines): the run exits 6 and its summary names them (health_fail).
  std::vector<std::string> health_fail;
};

// The run's topology, or one flat group of its nodes where none was set (a run built by hand).
inline plan::Topology topology_of(const PairsRun& run) {
  if (run.topology.node_count() == static_cast<int>(run.nodes.size())) return run.topology;
  std::vector<std::string> names;
  for (const auto& n : run.nodes) names.push_back(n.name);
  return plan::flat_topology(names);
}

}  // namespace commsweep::pairs
