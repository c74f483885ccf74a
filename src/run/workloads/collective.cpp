// The collectives (`commsweep TEST...`, a suite's `kind: collective`): nccl-tests' sweeps of the
// registered collectives (collectives/<name>.cpp), their settings collectives/settings.cpp's.
#include <sstream>

#include "collectives/collective_test.hpp"
#include "collectives/settings.hpp"
#include "comm/make_backend.hpp"
#include "core/exit_codes.hpp"
#include "core/types.hpp"
#include "run/sweeps.hpp"
#include "run/workload.hpp"
#include "sweep/buffer_room.hpp"

namespace commsweep {
namespace {

class CollectiveMeasurement final : public MeasurementOf<CollectiveSettings> {
 public:
  CollectiveMeasurement(CollectiveSettings c, BackendChoice backend, std::string root_named, std::string max_named)
      : MeasurementOf(std::move(c)), backend_(backend), root_named_(std::move(root_named)),
        max_named_(std::move(max_named)) {}
  void check(World& world) override {
    check_collective_sweep(world, config.tests, config.sweep, backend_, root_named_);
    // Host buffers (the mpi backend) are known before anything runs: a sweep too large is refused
    // before the preflight prints a word. The nccl backend's GPU memory is known once set up.
    require_buffers_fit(world, buffers(world), memory_room_before_backend(world, backend_, config.sweep.timeout_s),
                        config.sweep, max_named_);
  }
  std::string prepare(World& world, RunSetup& setup) override {
    // The nccl backend's GPU memory, before the preamble and the first table.
    if (setup.backend.backend->name() == "nccl")
      require_buffers_fit(world, buffers(world), setup.backend.backend->memory_room(), config.sweep, max_named_);
    return "";
  }
  bool records_nccl_choice() const override { return config.sweep.show_algo; }
  void annotate(report::Results& results, const Backend& backend) const override {
    results.provenance.buffers = std::string(name_of(config.sweep.buffers));
    // The clock of the collective sweeps; a suite may time them with both (compare says so).
    const std::string timer = timer_name(config.sweep, backend);
    const std::string& kept = results.provenance.timer;
    results.provenance.timer = kept.empty() || kept == timer ? timer : "mixed";
  }
  std::vector<std::pair<std::string, std::string>> recorded_once() const override {
    return {{"buffers", std::string(name_of(config.sweep.buffers))}};
  }
  std::string what() const override {
    std::string out;
    for (const auto& t : config.tests) out += (out.empty() ? "" : ",") + t;
    return out;
  }
  std::vector<std::string> expected_workloads() const override { return config.tests; }
  double timeout_s() const override { return config.sweep.timeout_s; }
  Outcome run(Stage& stage, report::Results& results) override {
    CollectiveOutcome outcome = run_collective_sweep(stage.world, stage.backend, stage.control, stage.setup,
                                                     config.tests, config.sweep, stage.out);
    for (auto& r : outcome.rows) results.rows.push_back(std::move(r));
    for (auto& f : outcome.expected_findings) results.expected_findings.push_back(std::move(f));
    Outcome out;
    out.wrong = outcome.wrong;
    return out;
  }

 private:
  SweepBuffers buffers(const World& world) const {
    std::vector<const CollectiveTest*> tests;
    for (const auto& name : config.tests) tests.push_back(find_collective_test(name));
    return largest_buffers(tests, config.sweep, world.size());
  }

  BackendChoice backend_;
  std::string root_named_;  // "-r/--root", or a suite's key "root"
  std::string max_named_;   // "-e/--maxbytes", or a suite's key "max_bytes"
};

std::unique_ptr<Measurement> read(const settings::Flags& flags, const settings::DocumentEntry* document,
                                  const RunSettings& run) {
  CollectiveSettings c;
  const settings::Origins origins = settings::apply(collective_settings(), c, flags, document);
  check_collective_backend(c.sweep, origins, run.backend == BackendChoice::Mpi);
  c.sweep.timeout_s = run.timeout_s;
  return std::make_unique<CollectiveMeasurement>(std::move(c), run.backend, document ? "root" : "-r/--root",
                                                 document ? "max_bytes" : "-e/--maxbytes");
}

std::vector<const settings::Spec*> specs() { return collective_settings().specs(); }

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto* t : collective_tests()) out.emplace_back(t->name);
  return out;
}

std::string help_intro() {
  std::ostringstream out;
  out << "commsweep: collective sweeps over NCCL (GPUs) or MPI (hosts), in nccl-tests' layout.\n\n"
         "Usage: mpirun -np N commsweep [TEST...] [flags]\n"
         "       commsweep COMMAND [flags]   (see Other commands)\n"
         "       commsweep list | --help | --version\n\n"
         "Tests (default all_reduce; several, a comma list, or all):\n";
  for (const auto* t : collective_tests()) {
    out << "  " << t->name << std::string(16 - t->name.size(), ' ') << t->summary << "\n";
  }
  return out.str();
}

std::string help_end() {
  return "Sizes take K, M, G, T suffixes, powers of 1024 (Ki, Mi, Gi, Ti and KiB... alike: 1M =\n"
         "1Mi = 1MiB = 1048576). KB, MB, GB, TB are refused with a did-you-mean: GB is 10^9 bytes\n"
         "in the GB/s of the tables. A size that is no whole number of elements, or of per-rank\n"
         "blocks, is rounded down as nccl-tests does, and a note says so.\n\n"
         "Bandwidth (GB/s = 1e9 bytes/s): algbw = size / time. busbw = algbw x factor, the share\n"
         "of the data each rank moves over its busiest link, comparable with the link's peak\n"
         "(nccl-tests' definitions, PERFORMANCE.md):\n" +
         bus_factor_help_lines() + "\n" +  // from the descriptors (collectives/<name>.cpp)
         "Correctness: each rank's input is a deterministic pattern of (rank, index, seed) chosen so\n"
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
         "is aborted and the job ends with exit code 4.\n\n" +
         measuring_exit_codes_help(/*slow=*/true) +
         "2: also ranks started with different arguments, refused at start. 5: SIGTERM or SIGINT;\n"
         "the rows measured so far are printed and written, marked incomplete (mpirun, when it is\n"
         "the process signalled, itself exits 1). 6: a FAIL in the health snapshots before and after\n"
         "the run (summary.health_fail in the JSON names each; a WARN is no failure), or NCCL did not\n"
         "use the --require-transport / --require-gdr transport (the run stops after set-up, before\n"
         "measuring, and says which rank used what). 7: a rank could not allocate the buffers of the\n"
         "largest size (-e); the run stops on every rank, naming the ranks; the rows measured before\n"
         "are written, marked incomplete (no results file when there are none). 8: wrong elements\n"
         "(the JSON is written, with ok false). 11: --json could not be written at the end.\n\n"
         "Fabric: with the nccl backend, NCCL's own INFO lines are captured at set-up (a private\n"
         "NCCL_DEBUG_FILE, unless NCCL_DEBUG or NCCL_DEBUG_FILE are set: then yours are read, or\n"
         "nothing) and a transport report is printed before the tables: network (IB or Socket),\n"
         "HCAs, RoCE or IB, GPUDirect RDMA, channels and the transport to each peer (P2P, SHM,\n"
         "NET); the results JSON keeps it (\"transport\"). A brief preflight runs first.\n\n"
         "NCCL's choice: with the nccl backend each row's algorithm, protocol and channels come\n"
         "from commsweep's NCCL profiler plugin (libcommsweep-nccl-profiler.so beside the binary):\n"
         "NCCL_PROFILER_PLUGIN is set to it where unset; NCCL_PROFILER_PLUGIN=none turns it off,\n"
         "another plugin of yours is left and said. In the JSON always (\"nccl\"), in the table\n"
         "with --show-algo; scripts/check-nccl-algo.py checks them against NCCL's TUNING lines.\n\n"
         "Examples:\n"
         "  mpirun -np 4 commsweep all_reduce -b 8 -e 8G -f 2\n"
         "  mpirun -np 8 commsweep all -d float,bf16 -c 1 --json results.json\n"
         "  mpirun -np 4 commsweep sendrecv --backend mpi -e 64M\n";
}

}  // namespace

const Workload& collective_workload() {
  static const Workload w = [] {
    Workload w;
    w.name = "collective";
    w.summary = "the collectives of `commsweep TEST...` (commsweep --help)";
    w.order = 10;
    w.specs = specs;
    w.sections = {{kSweepSection, "Sweep (nccl-tests' flags)"}, {kRunSection, "commsweep"}};
    w.read = read;
    w.help_intro = help_intro;
    w.help_end = help_end;
    w.row_tests = names;
    w.baseline_tests = names;
    return w;
  }();
  return w;
}

}  // namespace commsweep
