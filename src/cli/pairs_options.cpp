#include "cli/pairs_options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/flags.hpp"
#include "plan/planners.hpp"
#include "runtime/error.hpp"
#include "sweep/sizes.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

po::options_description visible_flags() {
  po::options_description d("Options");
  d.add_options()
      ("size,s", po::value<std::string>()->default_value("64M"), "bytes each way per rail and exchange (K, M, G: powers of 1024); rounded down to whole floats")
      ("iters,n", po::value<int>()->default_value(20), "timed exchanges per round")
      ("warmup_iters,w", po::value<int>()->default_value(5), "untimed exchanges per round before them")
      ("check,c", po::value<int>()->default_value(1), "verify the received data bit-exact N times per round (0: off)")
      ("slow-below", po::value<double>()->default_value(0.8), "a pair is slow below this fraction of the median rail (0 < F <= 1)")
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (grouped ncclSend/ncclRecv on device buffers), mpi (MPI_Isend/Irecv on host buffers), or auto: nccl where every rank has a GPU")
      ("timeout,T", po::value<double>()->default_value(300), "seconds any phase may take before the job is ended (as the sweeps' -T)")
      ("json", po::value<std::string>(), "write every pair and rail, the matrix and the findings here (schema commsweep.pairs/2, atomically; above 64 nodes the slow pairs and per-node/per-leaf summaries only)")
      ("html", po::value<std::string>(), "write a self-contained HTML report here: the pair heatmap grouped by leaf, the findings, the slowest pairs")
      ("seed", po::value<std::uint64_t>(), "seed of the data pattern (and of sample:K's draw)")
      ("pattern", po::value<std::string>()->default_value("all-pairs"), "which pairs: all-pairs, intra-leaf, cross-leaf, bisection, sample:K (see below)")
      ("topology", po::value<std::vector<std::string>>()->composing(), "the leaf (and block) of every node: kubectl get nodes -o json|yaml (OCI RDMA or network.topology.kubernetes.io labels, or a Kueue Topology in the same input), Volcano HyperNodes, or NODE LEAF [BLOCK] lines; repeatable")
      ("adaptive", po::bool_switch(), "after the pattern, re-test the nodes of slow pairs until each finding names one node or one leaf's uplinks")
      ("max-minutes", po::value<double>()->default_value(0), "refuse a plan predicted to take longer (0: no limit)")
      ("cost-from", po::value<std::string>(), "fit the cost model to this pairs results file (--json of an earlier run)")
      ("plan", po::bool_switch(), "print the plan (rounds, pairs, bytes, predicted time) and exit; no MPI, no mpirun")
      ("nodes", po::value<int>(), "--plan: this many nodes (without --topology)")
      ("per-leaf", po::value<int>(), "--plan --nodes: a synthetic fabric of leaves of this many nodes")
      ("leaves-per-block", po::value<int>(), "--plan --nodes --per-leaf: this many leaves per block")
      ("gpus-per-node", po::value<int>()->default_value(8), "--plan: rails per node (one GPU and NIC each)")
      ("help,h", "show this help");
  return d;
}

po::options_description hidden_flags() {
  po::options_description d;
  // Testing only: slow-rank:R sleeps after each exchange (comm/slowed_backend.hpp), a planted slow
  // rail; hang:R@ROUND stays silent from that round on.
  d.add_options()("fault", po::value<std::string>())("fault-slowdown", po::value<double>());
  return d;
}

// A whole number of TEXT from FROM to its end (or to STOP), or -1.
int whole_number(const std::string& text, std::size_t from, std::size_t stop = std::string::npos) {
  const std::string digits = text.substr(from, stop == std::string::npos ? stop : stop - from);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

void parse_fault(const std::string& text, PairsOptions& o) {
  const std::string slow = "slow-rank:", hang = "hang:", leaf = "slow-leaf:";
  if (text.rfind(leaf, 0) == 0 && text.size() > leaf.size()) {
    o.slow_leaf = text.substr(leaf.size());
    return;
  }
  if (text.rfind(slow, 0) == 0) o.slow_rank = whole_number(text, slow.size());
  if (text.rfind(hang, 0) == 0) {
    const std::size_t at = text.find('@');
    if (at != std::string::npos) {
      o.hang_rank = whole_number(text, hang.size(), at);
      o.hang_round = whole_number(text, at + 1);
    }
  }
  const bool slow_ok = o.slow_rank >= 0;
  const bool hang_ok = o.hang_rank >= 0 && o.hang_round >= 1;
  if (!slow_ok && !hang_ok) {
    throw_usage("pairs: --fault: '" + text + "' is not slow-rank:RANK, slow-leaf:LEAF or hang:RANK@ROUND (ROUND counted from 1)");
  }
}

template <typename T>
T in_range(const po::variables_map& vm, const char* name, const char* flag, T low, T high) {
  const T v = vm[name].as<T>();
  if (v < low || v > high) {
    std::ostringstream why;
    why << "pairs: " << flag << ": " << v << " is out of range (" << low << " to " << high << ")";
    throw_usage(why.str());
  }
  return v;
}

void parse_plan_flags(const po::variables_map& vm, PairsOptions& o) {
  o.pattern = vm["pattern"].as<std::string>();
  try {
    plan::parse_pattern(o.pattern);
  } catch (const std::invalid_argument& e) {
    throw_usage(std::string("pairs: --pattern: ") + e.what());
  }
  if (vm.count("topology")) o.topology_files = vm["topology"].as<std::vector<std::string>>();
  o.adaptive = vm["adaptive"].as<bool>();
  o.max_minutes = in_range(vm, "max-minutes", "--max-minutes", 0.0, 1e6);
  if (vm.count("cost-from")) o.cost_from = vm["cost-from"].as<std::string>();
  o.plan = vm["plan"].as<bool>();
  o.gpus_per_node = in_range(vm, "gpus-per-node", "--gpus-per-node", 1, 1024);
  const bool nodes = vm.count("nodes") > 0;
  if (nodes) o.plan_nodes = in_range(vm, "nodes", "--nodes", 2, 1 << 16);
  if (vm.count("per-leaf")) o.per_leaf = in_range(vm, "per-leaf", "--per-leaf", 1, 1 << 16);
  if (vm.count("leaves-per-block")) o.leaves_per_block = in_range(vm, "leaves-per-block", "--leaves-per-block", 1, 1 << 16);
  if ((nodes || o.per_leaf || o.leaves_per_block) && !o.plan) throw_usage("pairs: --nodes, --per-leaf and --leaves-per-block go with --plan");
  if (o.plan && nodes == !o.topology_files.empty()) throw_usage("pairs: --plan needs --nodes N or --topology FILE (one of them)");
  if ((o.per_leaf || o.leaves_per_block) && !nodes) throw_usage("pairs: --per-leaf and --leaves-per-block go with --plan --nodes N");
  if (o.leaves_per_block && !o.per_leaf) throw_usage("pairs: --leaves-per-block needs --per-leaf");
}

}  // namespace

PairsOptions parse_pairs_options(int argc, const char* const* argv) {
  po::options_description all;
  all.add(visible_flags()).add(hidden_flags());
  const po::variables_map vm =
      parse_flags(argc, argv, 2, all, po::positional_options_description(), "pairs: ", " (commsweep pairs --help)");
  PairsOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  if (vm.count("help")) {
    o.help = true;
    return o;
  }
  o.bytes = parse_size(vm["size"].as<std::string>(), "pairs: -s/--size");
  if (o.bytes < 4) throw_usage("pairs: -s/--size: " + std::to_string(o.bytes) + " B is less than one float (4 B)");
  o.iters = in_range(vm, "iters", "-n/--iters", 1, 1 << 24);
  o.warmup = in_range(vm, "warmup_iters", "-w/--warmup_iters", 0, 1 << 24);
  o.check = in_range(vm, "check", "-c/--check", 0, 1000);
  o.slow_fraction = vm["slow-below"].as<double>();
  if (!(o.slow_fraction > 0 && o.slow_fraction <= 1)) {
    throw_usage("pairs: --slow-below: " + std::to_string(o.slow_fraction) + " is not a fraction in (0, 1]");
  }
  o.backend = parse_backend(vm["backend"].as<std::string>());
  o.timeout_s = in_range(vm, "timeout", "-T/--timeout", 1.0, 7 * 24 * 3600.0);
  if (vm.count("json")) o.json_path = vm["json"].as<std::string>();
  if (vm.count("html")) o.html_path = vm["html"].as<std::string>();
  if (vm.count("seed")) o.seed = vm["seed"].as<std::uint64_t>();
  if (vm.count("fault")) parse_fault(vm["fault"].as<std::string>(), o);
  if (vm.count("fault-slowdown")) o.fault_slowdown = in_range(vm, "fault-slowdown", "--fault-slowdown", 2.0, 1000.0);
  parse_plan_flags(vm, o);
  return o;
}

bool pairs_plan_requested(int argc, const char* const* argv) {
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--plan") return true;
  }
  return false;
}

std::string pairs_help_text() {
  std::ostringstream out;
  out << "Usage: mpirun -np N commsweep pairs [options]\n\n"
         "Measures the bandwidth between every pair of nodes, to find a bad node, GPU or NIC.\n"
         "The nodes meet in rounds of disjoint pairs (a round-robin tournament: every pair exactly\n"
         "once, no node in two pairs of a round; with an odd node count one node sits out each\n"
         "round). In a pair, local rank k of one node exchanges with local rank k of the other,\n"
         "every k at once (every GPU and NIC rail of both nodes loaded), both directions at once:\n"
         "-w warm-up then -n timed exchanges of -s bytes each way, then the received data is\n"
         "verified bit-exact (-c) with the sweeps' data pattern.\n\n"
         "Nodes are hosts, or the groups of ranks that share NCCL_HOSTID (scripts/emulate-nodes.sh\n"
         "emulates nodes on one machine). Nodes with different rank counts pair the local ranks both\n"
         "have, and the output says so. At least 2 nodes.\n\n"
         "Output (rank 0): a line per round as it is measured; the node legend (host, ranks, GPU PCI\n"
         "ids); a node x node matrix of GB/s each way (GB = 1e9 B), per pair its slowest rail (every\n"
         "rail in --json); the median over every rail; each pair below --slow-below x median, named\n"
         "with its slowest rail (ranks, hosts, GPU PCI ids); and the node in the most slow pairs, when\n"
         "more than one, named as the likely bad node with the GPU of its slowest rail. The median\n"
         "stands for a healthy rail while fewer than half the rails are slow: one bad rail on any\n"
         "cluster; a whole bad node from 5 nodes up.\n\n"
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
         "  mpirun -np 8000 -npernode 8 commsweep pairs --topology nodes.json --pattern bisection --adaptive --json p.json --html p.html\n\n"
      << visible_flags()
      << "\nExit codes: 0 no slow pair, every element right; 1 wrong elements (outranks the others);\n"
         "2 bad flags, or fewer than 2 nodes; 3 a CUDA, NCCL or MPI call failed; 4 timeout (hang)\n"
         "(for 3 and 4 the rounds measured so far are written to --json, marked incomplete);\n"
         "5 interrupted by SIGTERM or SIGINT (the rounds measured so far are printed and written);\n"
         "6 a slow pair was found (a fabric check failed, as in commsweep preflight).\n";
  return out.str();
}

}  // namespace commsweep
