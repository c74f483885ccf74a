// Bandwidth between every pair of nodes (`commsweep pairs`, a suite's `kind: pairs`): rounds
// of disjoint pairs (pairs/, plan/), the node x node matrix, the slow pairs and the bad node.
#include <sstream>

#include "core/exit_codes.hpp"
#include "pairs/figures.hpp"
#include "pairs/pairs_json.hpp"
#include "pairs/settings.hpp"
#include "run/pairs_run.hpp"
#include "run/workload.hpp"

namespace commsweep {
namespace {

class PairsMeasurement final : public MeasurementOf<pairs::PairsSettings> {
 public:
  using MeasurementOf::MeasurementOf;
  void check(World& world) override { job_ = check_pairs_job(world, config); }
  std::string what() const override { return "pairs"; }
  double timeout_s() const override { return config.timeout_s; }
  void plan_document(DocumentKeeper& keeper) const override { plan_pairs_document(keeper, job_); }
  Outcome run(Stage& stage, report::Results&) override { return run_pairs_stage(stage, config, std::move(job_)); }
  int run_offline() override { return run_pairs_plan(config); }

 private:
  PairsJob job_;
};

std::unique_ptr<Measurement> read(const settings::Flags& flags, const settings::DocumentEntry* document,
                                  const RunSettings& run) {
  pairs::PairsSettings s;
  settings::apply(pairs::pairs_settings(), s, flags, document);
  s.timeout_s = run.timeout_s;
  return std::make_unique<PairsMeasurement>(std::move(s));
}

std::vector<const settings::Spec*> specs() { return pairs::pairs_settings().specs(); }

std::string help_intro() {
  std::ostringstream out;
  out << "Usage: mpirun -np N commsweep pairs [options]\n\n"
         "Measures the bandwidth between every pair of nodes, to find a bad node, GPU or NIC.\n"
         "The nodes meet in rounds of disjoint pairs (a round-robin tournament: every pair exactly\n"
         "once, no node in two pairs of a round; with an odd node count one node sits out each\n"
         "round). In a pair, local rank k of one node exchanges with local rank k of the other,\n"
         "every k at once (every GPU and NIC rail of both nodes loaded), both directions at once:\n"
         "-w warm-up then -n timed exchanges of -s bytes each way, then the received data is\n"
         "verified bit-exact (-c) with the sweeps' data pattern. An exchange is grouped\n"
         "ncclSend/ncclRecv on device buffers (--backend nccl) or MPI_Isend/Irecv on host buffers\n"
         "(mpi).\n\n"
         "Nodes are hosts, or the groups of ranks that share NCCL_HOSTID (scripts/emulate-nodes.sh\n"
         "emulates nodes on one machine). Nodes with different rank counts pair the local ranks both\n"
         "have, and the output says so. At least 2 nodes.\n\n"
         "Output (rank 0): a line per round as it is measured; the node legend (host, ranks, GPU PCI\n"
         "ids); a node x node matrix of GB/s each way (GB = 1e9 B), per pair its slowest rail (every\n"
         "rail in --json); the median over every rail; each slow pair, named with its slowest rail\n"
         "(ranks, hosts, GPU PCI ids); and the node in the most slow pairs, when more than one, named\n"
         "as the likely bad node with the GPU of its slowest rail. A pair is slow below --slow-below\n"
         "x the median rail, or below --slow-below-top-third x the top-third pair (the slowest of the\n"
         "fastest third of the pairs). The median stands for a healthy rail while fewer than half the\n"
         "rails are slow: one bad rail on any cluster; a whole bad node from 5 nodes up. With 2 to 4\n"
         "nodes a bad node's rails can be the median (the output says so); noise only slows an\n"
         "exchange and one bad node leaves a third of the pairs healthy, so the top-third pair stays\n"
         "healthy, and a pair 10x below it is slow whatever the median.\n\n"
         "Patterns (--pattern; every one gives rounds of disjoint pairs):\n"
         "  all-pairs    the round-robin tournament: every pair exactly once, N-1 rounds (N even) or N\n"
         "  intra-leaf   every pair under one leaf switch, every leaf at once: NICs and cables\n"
         "  cross-leaf   every pair under different leaves: each round loads the leaves' uplinks\n"
         "  bisection    per cut level (blocks, leaves, nodes of a leaf), one half against the other\n"
         "  sample:K     K random perfect matchings (for thousands of nodes), the coverage stated\n"
         "--topology gives each node's leaf and block: `kubectl get nodes -o json` (OCI's\n"
         "oci.oraclecloud.com/rdma.local_block_id / network_block_id labels, Topograph's\n"
         "network.topology.kubernetes.io/block / spine, or the levels of a Kueue Topology given with\n"
         "them), Volcano HyperNodes, or NODE LEAF [BLOCK] lines; without it, one flat group.\n"
         "--adaptive then re-tests the nodes of slow pairs against partners fine so far, until each\n"
         "finding names one node, one leaf's uplinks, or one link (# FINDING lines, JSON findings).\n"
         "--plan prints the rounds, pairs, bytes and predicted wall time without MPI (no mpirun),\n"
         "from a cost model fitted to an earlier --json (--cost-from) or a documented default;\n"
         "--max-minutes refuses a plan (or a run) predicted to take longer. On a terminal, rank 0\n"
         "shows round k of n with an ETA.\n\n"
         "Examples:\n"
         "  mpirun -np 16 -npernode 8 commsweep pairs                    # 2 nodes x 8 GPUs, 64 MiB\n"
         "  mpirun -np 64 -npernode 8 commsweep pairs -s 256M -n 10 --json pairs.json\n"
         "  mpirun -np 6 scripts/emulate-nodes.sh commsweep pairs --backend mpi -s 1M  # 3 emulated nodes\n"
         "  kubectl get nodes -o json > nodes.json\n"
         "  commsweep pairs --plan --topology nodes.json --pattern cross-leaf --max-minutes 60\n"
         "  mpirun -np 8000 -npernode 8 commsweep pairs --topology nodes.json --pattern bisection --adaptive --json p.json --html p.html\n";
  return out.str();
}

std::string help_end() {
  std::ostringstream out;
  out << "--json FILE: every pair and rail, the matrix and the findings (schema commsweep.pairs/2;\n"
         "above 64 nodes the slow pairs and per-node/per-leaf summaries only). In a suite (kind: pairs)\n"
         "the same document goes into the suite's results file, under \"pairs\".\n\n"
      << measuring_exit_codes_help(/*slow=*/true)
      << "2: also fewer than 2 nodes. 3, 4: the rounds measured so far are written to --json, marked\n"
         "incomplete; 5 (SIGTERM, SIGINT): they are printed and written too. 6: a FAIL in the health\n"
         "snapshots around the run (named in the JSON's summary.health_fail), before 10: a slow pair.\n";
  return out.str();
}

// A baseline judges its --json file's pairs under this test name (pairs/figures.hpp).
std::vector<std::string> baseline_tests() { return {"pairs"}; }

}  // namespace

const Workload& pairs_workload() {
  static const Workload w = [] {
    Workload w;
    w.name = "pairs";
    w.command = "pairs";
    w.summary = "bandwidth between every pair of nodes: a matrix, slow pairs, the bad node (--help)";
    w.order = 30;
    w.specs = specs;
    w.sections = {{pairs::kOptionsSection, "Options"}};
    w.read = read;
    w.help_intro = help_intro;
    w.help_end = help_end;
    w.baseline_tests = baseline_tests;
    w.offline_flag = "plan";
    w.schema = pairs::kPairsSchema;
    w.figures = pairs::sheet_from_json;
    return w;
  }();
  return w;
}

}  // namespace commsweep
