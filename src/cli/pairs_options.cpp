#include "cli/pairs_options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/flags.hpp"
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
      ("json", po::value<std::string>(), "write every pair and rail, the matrix and the findings here (schema commsweep.pairs/1, atomically)")
      ("seed", po::value<std::uint64_t>(), "seed of the data pattern")
      ("help,h", "show this help");
  return d;
}

po::options_description hidden_flags() {
  po::options_description d;
  // Testing only: slow-rank:R sleeps after each exchange (pairs/slow_rank.hpp), a planted slow
  // rail; hang:R@ROUND stays silent from that round on.
  d.add_options()("fault", po::value<std::string>());
  return d;
}

// A whole number of TEXT from FROM to its end (or to STOP), or -1.
int whole_number(const std::string& text, std::size_t from, std::size_t stop = std::string::npos) {
  const std::string digits = text.substr(from, stop == std::string::npos ? stop : stop - from);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

void parse_fault(const std::string& text, PairsOptions& o) {
  const std::string slow = "slow-rank:", hang = "hang:";
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
    throw_usage("pairs: --fault: '" + text + "' is not slow-rank:RANK or hang:RANK@ROUND (ROUND counted from 1)");
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
  if (vm.count("seed")) o.seed = vm["seed"].as<std::uint64_t>();
  if (vm.count("fault")) parse_fault(vm["fault"].as<std::string>(), o);
  return o;
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
         "Examples:\n"
         "  mpirun -np 16 -npernode 8 commsweep pairs                    # 2 nodes x 8 GPUs, 64 MiB\n"
         "  mpirun -np 64 -npernode 8 commsweep pairs -s 256M -n 10 --json pairs.json\n"
         "  mpirun -np 6 scripts/emulate-nodes.sh commsweep pairs --backend mpi -s 1M  # 3 emulated nodes\n\n"
      << visible_flags()
      << "\nExit codes: 0 no slow pair, every element right; 1 wrong elements (outranks the others);\n"
         "2 bad flags, or fewer than 2 nodes; 3 a CUDA, NCCL or MPI call failed; 4 timeout (hang)\n"
         "(for 3 and 4 the rounds measured so far are written to --json, marked incomplete);\n"
         "5 interrupted by SIGTERM or SIGINT (the rounds measured so far are printed and written);\n"
         "6 a slow pair was found (a fabric check failed, as in commsweep preflight).\n";
  return out.str();
}

}  // namespace commsweep
