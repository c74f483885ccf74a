#include "cli/pairs_options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "run/fabric_run_options.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "settings/program_options.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

po::options_description visible_flags() {
  po::options_description d("Options");
  settings::describe(d, pairs::pairs_settings().specs(), pairs::kOptionsSection);
  d.add_options()
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (grouped ncclSend/ncclRecv on device buffers), mpi (MPI_Isend/Irecv on host buffers), or auto: nccl where every rank has a GPU")
      ("json", po::value<std::string>(), "write every pair and rail, the matrix and the findings here (schema commsweep.pairs/2, atomically; above 64 nodes the slow pairs and per-node/per-leaf summaries only)")
      ("html", po::value<std::string>(), "write a self-contained HTML report here: the pair heatmap grouped by leaf, the findings, the slowest pairs")
      ("help,h", "show this help");
  return d;
}

// Testing only, not in --help.
po::options_description hidden_flags() {
  po::options_description d;
  settings::describe(d, pairs::pairs_settings().specs(), pairs::kHiddenSection);
  return d;
}

}  // namespace

PairsOptions parse_pairs_options(int argc, const char* const* argv) {
  po::options_description all;
  all.add(visible_flags()).add(fabric_run_flags()).add(hidden_flags());
  const po::variables_map vm =
      parse_flags(argc, argv, 2, all, po::positional_options_description(), "pairs: ", " (commsweep pairs --help)");
  PairsOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  if (vm.count("help")) {
    o.help = true;
    return o;
  }
  o.backend = parse_backend(vm["backend"].as<std::string>());
  if (vm.count("json")) o.json_path = vm["json"].as<std::string>();
  if (vm.count("html")) o.html_path = vm["html"].as<std::string>();
  o.fabric = parse_fabric_run_flags(vm, o.backend == BackendChoice::Mpi);
  try {
    settings::apply(pairs::pairs_settings(), static_cast<pairs::PairsSettings&>(o),
                    settings::given_flags(vm, pairs::pairs_settings().specs()));
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Usage) throw;
    throw_usage(std::string("pairs: ") + e.what());  // every refusal of `commsweep pairs` says whose
  }
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
      << visible_flags() << "\n"
      << fabric_run_flags()
      << "\nExit codes: 0 no slow pair, every element right; 1 wrong elements (outranks the others);\n"
         "2 bad flags, or fewer than 2 nodes; 3 a CUDA, NCCL or MPI call failed; 4 timeout (hang)\n"
         "(for 3 and 4 the rounds measured so far are written to --json, marked incomplete);\n"
         "5 interrupted by SIGTERM or SIGINT (the rounds measured so far are printed and written);\n"
         "6 a slow pair was found (a fabric check failed, as in commsweep preflight).\n";
  return out.str();
}

}  // namespace commsweep
