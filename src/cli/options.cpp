#include "cli/options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "collectives/collective_test.hpp"
#include "collectives/settings.hpp"
#include "core/strings.hpp"
#include "core/error.hpp"
#include "settings/program_options.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

po::options_description sweep_flags() {
  po::options_description d("Sweep (nccl-tests' flags)");
  settings::describe(d, collective_settings().specs(), kSweepSection);
  return d;
}

po::options_description commsweep_flags() {
  po::options_description d("commsweep");
  d.add_options()
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU")
      ("json", po::value<std::string>(), "write the results as JSON to this file (atomically)");
  settings::describe(d, collective_settings().specs(), kRunSection);  // --timer --buffers --seed --fault
  d.add_options()
      ("shape", po::value<std::string>(), "the node shape (e.g. BM.GPU.H100.8; else COMMSWEEP_SHAPE or the node's instance-type label): NCCL_TOPO_FILE is set to /etc/commsweep/topology/SHAPE.xml after checking it against the node")
      ("force", "run with a topology file that does not match the node")
      ("help,h", "show this help")
      ("version", "print the version");
  return d;
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

}  // namespace

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
  CollectiveSettings collective;
  const settings::Origins origins = settings::apply(
      collective_settings(), collective, settings::given_flags(vm, collective_settings().specs()));
  o.sweep = collective.sweep;
  if (vm.count("shape")) {
    o.shape = vm["shape"].as<std::string>();
    if (o.shape.empty()) throw_usage("--shape: give a shape, e.g. BM.GPU.H100.8");
  }
  o.force_topology = vm.count("force") > 0;
  check_collective_backend(o.sweep, origins, o.backend == BackendChoice::Mpi);
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
