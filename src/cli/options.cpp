#include "cli/options.hpp"

#include <boost/program_options.hpp>
#include <algorithm>
#include <iterator>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "collectives/collective_test.hpp"
#include "core/strings.hpp"
#include "runtime/error.hpp"
#include "sweep/sizes.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

po::options_description sweep_flags() {
  po::options_description d("Sweep (nccl-tests' flags)");
  d.add_options()
      ("minbytes,b", po::value<std::string>()->default_value("8"), "smallest message size, e.g. 8, 64K, 1M")
      ("maxbytes,e", po::value<std::string>()->default_value("128M"), "largest message size, e.g. 8G")
      ("stepbytes,i", po::value<std::string>(), "linear step between sizes (with -f 1)")
      ("stepfactor,f", po::value<std::string>()->default_value("2"), "multiply each size by this (> 1), or 1 for -i steps")
      ("iters,n", po::value<std::string>()->default_value("20"), "timed iterations per size")
      ("warmup_iters,w", po::value<std::string>()->default_value("5"), "untimed warm-up iterations per size")
      ("check,c", po::value<std::string>()->default_value("1"), "verify every output element bit-exact N times per size (0: off)")
      ("datatype,d", po::value<std::string>()->default_value("float"),
       "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2, a comma list, or all")
      ("op,o", po::value<std::string>()->default_value("sum"), "sum prod min max avg, a comma list, or all")
      ("root,r", po::value<std::string>()->default_value("0"), "root rank of broadcast and reduce")
      ("blocking,z", po::value<std::string>()->default_value("0"), "1: wait for each collective before the next")
      ("cudagraph,G", po::value<std::string>()->default_value("0"), "N > 0: capture the iterations in a CUDA graph and launch it N times (nccl)")
      ("average,a", po::value<std::string>()->default_value("1"), "time shown: 0 rank 0, 1 mean over ranks, 2 min, 3 max")
      ("run_cycles,N", po::value<std::string>()->default_value("1"), "run the sweep N times (0: until interrupted)")
      ("timeout,T", po::value<std::string>()->default_value("300"), "seconds any phase may take (communicator set-up, each collective) before the job is ended");
  return d;
}

// --fault's choices (test hooks, sweep/config.hpp), each given as NAME:RANK.
struct FaultName {
  const char* name;
  Fault::Kind kind;
};
constexpr FaultName kFaults[] = {{"wrong-element", Fault::Kind::WrongElement},
                                 {"never-join", Fault::Kind::NeverJoin},
                                 {"hang", Fault::Kind::Hang},
                                 {"alloc", Fault::Kind::Alloc},
                                 {"async-error", Fault::Kind::AsyncError},
                                 {"slow", Fault::Kind::Slow}};

// "wrong-element:RANK, never-join:RANK, ... or async-error:RANK"
std::string fault_choices() {
  std::string out;
  const std::size_t n = std::size(kFaults);
  for (std::size_t i = 0; i < n; ++i) {
    out += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + kFaults[i].name + ":RANK";
  }
  return out;
}

po::options_description commsweep_flags() {
  const std::string fault_help = "testing only: " + fault_choices() +
                                 "; never-join, hang, async-error and slow take @SIZE: from the first size of at least SIZE on"
                                 " (slow: that rank takes twice as long per timed iteration, so the job does)";
  po::options_description d("commsweep");
  d.add_options()
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU")
      ("timer", po::value<std::string>()->default_value("host"), "host: a clock around issue and completion after a barrier, as nccl-tests; device: CUDA events on the stream (nccl), without launch and synchronisation latency")
      ("buffers", po::value<std::string>()->default_value("cold"), "cold: each iteration uses the next slice of buffers sized for -e, as nccl-tests (inputs not left in cache by the last iteration); warm: the same bytes every iteration (cache-resident where they fit)")
      ("json", po::value<std::string>(), "write the results as JSON to this file (atomically)")
      ("seed", po::value<std::string>(), "seed of the data pattern")
      ("fault", po::value<std::string>(), fault_help.c_str())
      ("shape", po::value<std::string>(), "the node shape (e.g. BM.GPU.H100.8; else COMMSWEEP_SHAPE or the node's instance-type label): NCCL_TOPO_FILE is set to /etc/commsweep/topology/SHAPE.xml after checking it against the node")
      ("force", "run with a topology file that does not match the node")
      ("help,h", "show this help")
      ("version", "print the version");
  return d;
}

long long parse_integer(const po::variables_map& vm, const std::string& name, const std::string& flag,
                        long long min, long long max) {
  const std::string text = vm[name].as<std::string>();
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw_usage(flag + ": '" + text + "' is not a whole number");
  if (v < min || v > max) {
    throw_usage(flag + ": " + text + " is out of range (" + std::to_string(min) + " to " +
                std::to_string(max) + ")");
  }
  return v;
}

std::vector<DataType> parse_types(const std::string& text) {
  if (text == "all") return all_data_types();
  std::vector<DataType> types;
  for (const auto& part : split_commas(text)) {
    const auto t = parse_data_type(part);
    if (!t) {
      throw_usage("-d/--datatype: unknown type '" + part +
                  "' (int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 "
                  "f8e5m2, or all)");
    }
    types.push_back(*t);
  }
  if (types.empty()) throw_usage("-d/--datatype: no type given");
  return types;
}

std::vector<RedOp> parse_ops(const std::string& text) {
  if (text == "all") return all_red_ops();
  std::vector<RedOp> ops;
  for (const auto& part : split_commas(text)) {
    const auto op = parse_red_op(part);
    if (!op) throw_usage("-o/--op: unknown operator '" + part + "' (sum prod min max avg, or all)");
    ops.push_back(*op);
  }
  if (ops.empty()) throw_usage("-o/--op: no operator given");
  return ops;
}

Fault parse_fault(const std::string& text) {
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const auto* known = std::find_if(std::begin(kFaults), std::end(kFaults),
                                   [&](const FaultName& f) { return kind == f.name; });
  if (known == std::end(kFaults)) {
    throw_usage("--fault: unknown fault '" + kind + "' (" + fault_choices() + ")");
  }
  Fault f;
  f.kind = known->kind;
  if (colon == std::string::npos) throw_usage("--fault: give the rank, e.g. " + kind + ":1");
  const std::string rest = text.substr(colon + 1);
  const auto at = rest.find('@');
  const std::string rank = rest.substr(0, at);
  std::size_t used = 0;
  try {
    f.rank = std::stoi(rank, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != rank.size()) throw_usage("--fault: '" + rank + "' is not a rank");
  if (at != std::string::npos) {
    if (f.kind != Fault::Kind::NeverJoin && f.kind != Fault::Kind::Hang && f.kind != Fault::Kind::AsyncError &&
        f.kind != Fault::Kind::Slow) {
      throw_usage("--fault " + text + ": @SIZE is for never-join, hang, async-error and slow");
    }
    f.from_bytes = parse_size(rest.substr(at + 1), "--fault " + kind + ":RANK@SIZE");
  }
  return f;
}

// A word that is neither a command nor a test: the closest of both, then both lists.
std::string unknown_name_message(const std::string& name) {
  std::vector<std::string> commands = {"ep", "list"};
  for (const auto& c : world_commands()) commands.emplace_back(c.name);
  for (const auto& c : offline_commands()) commands.emplace_back(c.name);
  std::vector<std::string> tests = {"all"};
  for (const auto* k : collective_tests()) tests.emplace_back(k->name);
  std::vector<std::string> every = commands;
  every.insert(every.end(), tests.begin(), tests.end());
  const std::string guess = closest_name(name, every);
  std::string message = "unknown command or test '" + name + "'";
  if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
  auto listed = [](const std::vector<std::string>& names) {
    std::string text;
    for (const auto& n : names) text += " " + n;
    return text;
  };
  return message + "; the commands are:" + listed(commands) + "; the tests are:" + listed(tests) +
         " (commsweep --help)";
}

std::vector<std::string> parse_tests(const std::vector<std::string>& given) {
  std::vector<std::string> tests;
  for (const auto& arg : given) {
    for (const auto& name : split_commas(arg)) {
      if (name == "all") {
        for (const auto* t : collective_tests()) tests.emplace_back(t->name);
        continue;
      }
      const auto* t = find_collective_test(name);
      if (t == nullptr) throw_usage(unknown_name_message(name));
      tests.emplace_back(t->name);
    }
  }
  if (tests.empty()) tests.emplace_back("all_reduce");
  return tests;
}

SweepConfig parse_sweep(const po::variables_map& vm) {
  SweepConfig c;
  c.min_bytes = parse_size(vm["minbytes"].as<std::string>(), "-b/--minbytes");
  c.max_bytes = parse_size(vm["maxbytes"].as<std::string>(), "-e/--maxbytes");
  if (c.min_bytes > c.max_bytes) {
    throw_usage("-b/--minbytes (" + vm["minbytes"].as<std::string>() +
                ") is greater than -e/--maxbytes (" + vm["maxbytes"].as<std::string>() + ")");
  }
  c.step_factor = static_cast<std::uint64_t>(
      parse_integer(vm, "stepfactor", "-f/--stepfactor", 1, 1 << 20));
  if (vm.count("stepbytes")) {
    c.step_bytes = parse_size(vm["stepbytes"].as<std::string>(), "-i/--stepbytes");
    if (c.step_bytes == 0) throw_usage("-i/--stepbytes: the step must be greater than 0");
  } else if (c.step_factor == 1 && c.min_bytes != c.max_bytes) {
    throw_usage("-f/--stepfactor 1 makes a linear sweep: give its step with -i/--stepbytes");
  }
  if (vm.count("stepbytes") && vm["stepfactor"].defaulted()) c.step_factor = 1;
  // 0 times a factor stays 0: the sweep would be the one size 0, which has no element to move.
  if (c.min_bytes == 0 && c.step_factor > 1) {
    throw_usage("-b/--minbytes 0 with -f/--stepfactor " + vm["stepfactor"].as<std::string>() +
                " sweeps only 0 bytes (0 times a factor stays 0): give -b 8 or more, or a linear "
                "sweep (-f 1 -i STEP)");
  }
  if (const std::uint64_t n = size_count(c); n > kMaxSizes) {
    throw_usage("-i/--stepbytes: " + vm["stepbytes"].as<std::string>() + " steps from -b to -e make " +
                std::to_string(n) + " sizes (at most " + std::to_string(kMaxSizes) +
                "); give a larger step");
  }
  c.iters = static_cast<int>(parse_integer(vm, "iters", "-n/--iters", 1, 1 << 24));
  c.warmup = static_cast<int>(parse_integer(vm, "warmup_iters", "-w/--warmup_iters", 0, 1 << 24));
  c.check = static_cast<int>(parse_integer(vm, "check", "-c/--check", 0, 1000));
  c.types = parse_types(vm["datatype"].as<std::string>());
  c.ops = parse_ops(vm["op"].as<std::string>());
  c.root = static_cast<int>(parse_integer(vm, "root", "-r/--root", 0, 1 << 30));
  c.blocking = parse_integer(vm, "blocking", "-z/--blocking", 0, 1) == 1;
  c.graph_launches = static_cast<int>(parse_integer(vm, "cudagraph", "-G/--cudagraph", 0, 1 << 20));
  c.average = static_cast<Average>(parse_integer(vm, "average", "-a/--average", 0, 3));
  c.cycles = static_cast<int>(parse_integer(vm, "run_cycles", "-N/--run_cycles", 0, 1 << 30));
  c.timeout_s = static_cast<double>(parse_integer(vm, "timeout", "-T/--timeout", 1, 7 * 24 * 3600));
  if (vm.count("seed")) {
    c.seed = static_cast<std::uint64_t>(parse_integer(vm, "seed", "--seed", 0, INT64_MAX));
  }
  if (vm.count("fault")) c.fault = parse_fault(vm["fault"].as<std::string>());
  return c;
}

}  // namespace

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

BackendChoice parse_backend(const std::string& text) {
  if (text == "auto") return BackendChoice::Auto;
  if (text == "nccl") return BackendChoice::Nccl;
  if (text == "mpi") return BackendChoice::Mpi;
  throw_usage("--backend: unknown backend '" + text + "' (nccl, mpi or auto)");
}

CliOptions parse_options(int argc, const char* const* argv) {
  po::options_description visible;
  visible.add(sweep_flags()).add(commsweep_flags()).add(fabric_run_flags());
  po::options_description all;
  all.add(visible).add_options()("tests", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("tests", -1);

  const po::variables_map vm = parse_flags(argc, argv, 1, all, positional, "", " (see --help)");

  CliOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  std::vector<std::string> given;
  if (vm.count("tests")) given = vm["tests"].as<std::vector<std::string>>();
  // `commsweep prefligt --help`: the help of a word that names nothing would hide the typo.
  if (!given.empty() && given.front() != "list") o.tests = parse_tests(given);
  if (vm.count("help")) {
    o.action = CliOptions::Action::Help;
    return o;
  }
  if (vm.count("version")) {
    o.action = CliOptions::Action::Version;
    return o;
  }
  if (!given.empty() && given.front() == "list") {
    o.action = CliOptions::Action::List;
    return o;
  }
  o.tests = parse_tests(given);
  o.backend = parse_backend(vm["backend"].as<std::string>());
  o.fabric = parse_fabric_run_flags(vm, o.backend == BackendChoice::Mpi);
  if (vm.count("json")) {
    o.json_path = vm["json"].as<std::string>();
    if (o.json_path.empty()) throw_usage("--json: give a file name");
  }
  o.sweep = parse_sweep(vm);
  if (vm.count("shape")) {
    o.shape = vm["shape"].as<std::string>();
    if (o.shape.empty()) throw_usage("--shape: give a shape, e.g. BM.GPU.H100.8");
  }
  o.force_topology = vm.count("force") > 0;
  const std::string timer = vm["timer"].as<std::string>();
  if (timer != "host" && timer != "device") {
    throw_usage("--timer: unknown timer '" + timer + "' (host or device)");
  }
  o.sweep.device_timer = timer == "device";
  const std::string buffers = vm["buffers"].as<std::string>();
  if (buffers != "cold" && buffers != "warm") {
    throw_usage("--buffers: unknown choice '" + buffers + "' (cold or warm)");
  }
  o.sweep.buffers = buffers == "warm" ? Buffers::Warm : Buffers::Cold;
  if (o.backend == BackendChoice::Mpi && o.sweep.device_timer) {
    throw_usage("--timer device needs the nccl backend (--backend mpi times with MPI_Wtime)");
  }
  if (o.backend == BackendChoice::Mpi && o.sweep.graph_launches > 0) {
    throw_usage("-G/--cudagraph needs the nccl backend (--backend mpi was given)");
  }
  return o;
}

std::string help_text() {
  po::options_description visible;
  visible.add(sweep_flags()).add(commsweep_flags()).add(fabric_run_flags());
  std::ostringstream out;
  out << "commsweep: collective sweeps over NCCL (GPUs) or MPI (hosts), in nccl-tests' layout.\n\n"
         "Usage: mpirun -np N commsweep [TEST...] [flags]\n"
         "       commsweep COMMAND [flags]   (see Other commands)\n"
         "       commsweep list | --help | --version\n\n"
         "Tests (default all_reduce; several, a comma list, or all):\n";
  for (const auto* t : collective_tests()) {
    out << "  " << t->name << std::string(16 - t->name.size(), ' ') << t->summary << "\n";
  }
  out << "\nOther commands (each has --help):\n" << commands_help();
  out << "\n" << visible << "\n";
  out << "Sizes take K, M, G, T suffixes (powers of 1024). A size that is no whole number of\n"
         "elements, or of per-rank blocks, is rounded down as nccl-tests does, and a note says so.\n\n"
         "Bandwidth (GB/s = 1e9 bytes/s): algbw = size / time. busbw = algbw x factor, the share\n"
         "of the data each rank moves over its busiest link, comparable with the link's peak\n"
         "(nccl-tests' definitions, PERFORMANCE.md):\n"
      << bus_factor_help_lines() << "\n"  // from the descriptors (collectives/<name>.cpp)
      << "Correctness: each rank's input is a deterministic pattern of (rank, index, seed) chosen so\n"
         "that every reduction is exact in every type and order; with -c every output element is\n"
         "compared bit-exact with the expectation computed locally, and #wrong sums over ranks.\n"
         "(Floating avg divides by n, rounded in the element type, as NCCL does.)\n\n"
         "Buffers (--buffers): cold, the default, moves the send and receive pointers on by one\n"
         "message (rounded up to 256 bytes) every warm-up, timed and check iteration, through\n"
         "buffers sized for -e, wrapping when the next message would not fit, as nccl-tests\n"
         "does: a message smaller than the GPU's L2 cache is not read from the cache the last\n"
         "iteration left it in while -e holds two or more of it. warm reuses the same bytes every\n"
         "iteration (1-8 MiB all_reduce then times a few microseconds faster on H200). The\n"
         "choice is printed in the '#' header and kept in the JSON (provenance.buffers).\n\n"
         "Hangs: every phase (communicator set-up, warm-up, timed iterations, check) must finish\n"
         "within -T seconds; otherwise rank 0 names the ranks that did not arrive, the communicator\n"
         "is aborted and the job ends with exit code 4.\n\n"
         "Exit codes: 0 all passed; 1 wrong elements found; 2 bad flags or input;\n"
         "3 a CUDA, NCCL or MPI call failed; 4 timeout (hang); 5 interrupted by SIGTERM or\n"
         "SIGINT: the rows measured so far are printed and written, marked incomplete. Ranks\n"
         "started with different arguments are refused at start (exit code 2).\n"
         "6 preflight failed: `commsweep preflight` or `commsweep transport` found a FAIL, or\n"
         "NCCL did not use the --require-transport / --require-gdr transport (the run stops\n"
         "after set-up, before measuring, and says which rank used what).\n"
         "7 out of memory: a rank could not allocate the buffers of the largest size (-e); the\n"
         "run stops on every rank, naming the ranks, and no results file is written.\n\n"
         "Fabric: with the nccl backend, NCCL's own INFO lines are captured at set-up (a private\n"
         "NCCL_DEBUG_FILE, unless NCCL_DEBUG or NCCL_DEBUG_FILE are set: then yours are read, or\n"
         "nothing) and a transport report is printed before the tables: network (IB or Socket),\n"
         "HCAs, RoCE or IB, GPUDirect RDMA, channels and the transport to each peer (P2P, SHM,\n"
         "NET); the results JSON keeps it (\"transport\"). A brief preflight runs first.\n\n"
         "Examples:\n"
         "  mpirun -np 4 commsweep all_reduce -b 8 -e 8G -f 2\n"
         "  mpirun -np 8 commsweep all -d float,bf16 -c 1 --json results.json\n"
         "  mpirun -np 4 commsweep sendrecv --backend mpi -e 64M\n";
  return out.str();
}

}  // namespace commsweep
