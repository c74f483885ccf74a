// The sweep engine: per size, per out-of-place / in-place half: fill, warm up, time, verify;
// then the per-rank times and wrong counts meet on rank 0 as a ResultRow.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "comm/backend.hpp"
#include "report/result.hpp"
#include "runtime/world.hpp"
#include "core/sweep_config.hpp"
#include "sweep/fault_points.hpp"
#include "sweep/run_control.hpp"
#include "sweep/slices.hpp"
#include "sweep/sweep_test.hpp"
#include "sweep/window_observer.hpp"

namespace commsweep {

// Where rows and notes go as they are measured (rank 0 prints them, collects them).
struct SweepSink {
  std::function<void(const report::ResultRow&)> on_row;
  std::function<void(const std::string&)> on_note;
};

// A size after nccl-tests' rounding: whole elements, whole blocks per rank.
struct PlannedSize {
  std::uint64_t requested_bytes;
  Counts counts;
  std::uint64_t bytes;  // max(send, recv) bytes: the size column
};
std::vector<PlannedSize> plan_sizes(const CollectiveTest& test, const std::vector<std::uint64_t>& sizes,
                                    DataType type, int nranks);
// The two buffers a sweep of these sizes allocates: each side as large as its largest size,
// laid out as --buffers says (buffer_bytes).
BufferBytes sweep_buffer_bytes(const std::vector<PlannedSize>& planned, DataType type, Buffers buffers);

// Combines per-rank times as -a says and fills the bandwidth figures.
report::Timing combine_timing(const std::vector<double>& rank_time_us, Average average,
                              std::uint64_t bytes, double bus_factor);

// The tails' pass (the per-iteration times, after the table's pass) times the table's -n
// iterations, or, where they would take longer than kTailsBudgetUs at the table's time per
// iteration (ITERATION_US), as many as fit in it, at least kTailsMinIterations (all -n where
// fewer). The budget keeps the default sweep's wall time within 1.3 x --per-iteration off's
// (docs/iterations.md: 8 B - 8 GiB on 2 x H200); it bounds only rows of milliseconds per
// iteration, whose spread is small, and the JSON's times_us says how many were timed.
inline constexpr double kTailsBudgetUs = 100'000;
inline constexpr int kTailsMinIterations = 10;
int tails_iterations(int iters, double iteration_us);

// A rooted TEST's root must be a rank of the job: a usage Error "NAMED R is not a rank of this job
// (0 to N-1)" otherwise (NAMED: "-r/--root", or a suite's key "root"). The sweep checks it, and
// the commands before anything runs.
void require_root_in_job(const CollectiveTest& test, int root, int nranks, const std::string& named = "-r/--root");

class Sweep {
 public:
  // CONTROL watches its phases and stops it where the ranks agree to (sweep/run_control.hpp).
  // FAULTS, where given, are asked at the sweep's named points (sweep/fault_points.hpp: the
  // planted faults of the tests); they must outlive the sweep. GPU_STATE, where given, is asked
  // for this rank's GPU at each window's two ends (before the warm-up, after the last timed pass) (sweep/window_observer.hpp); every rank
  // must pass one or none, as the windows are gathered.
  Sweep(World& world, Backend& backend, RunControl& control, const SweepConfig& config, FaultPoints* faults = nullptr,
        WindowObserver* gpu_state = nullptr);
  Sweep(const Sweep&) = delete;  // faults_ may refer to its own no_faults_
  Sweep& operator=(const Sweep&) = delete;

  // One test over every type, operator and size of the configuration. Returns the rows
  // (complete on rank 0; other ranks get rows without per-rank detail). Stopped on SIGTERM /
  // SIGINT at a size's arrival (the control is then interrupted()), it returns the rows so far.
  std::vector<report::ResultRow> run(const CollectiveTest& test, const SweepSink& sink);

 private:
  // One half of one size: where its iterations run and what its check expects.
  struct Slicing {
    BufferSlices slices;      // --buffers: the slices of the buffers, 1 when warm
    std::size_t check_first;  // the slice of the first check: after warm-up and timed ones
    pattern::Spec spec;
    pattern::Expect expect;
    bool output_checked;      // this rank's output is verified (the root's only, for reduce)
  };
  CollectiveArgs collective_args(const CollectiveTest& test, const PlannedSize& size, DataType type,
                                 RedOp op, bool in_place);
  // The -c check iterations on their slices: poison, fill, run, verify. This rank's wrong count.
  std::uint64_t check(const CollectiveArgs& args, const Counts& c, const Slicing& s,
                      const std::string& label);
  report::Timing measure(const CollectiveTest& test, const PlannedSize& size, DataType type,
                         RedOp op, bool in_place);
  // Both buffers for the largest size, on every rank or on none: a rank whose allocation
  // fails says so, every rank learns it, and all throw an OutOfMemory Error naming the ranks
  // (no rank is left waiting in a collective for one that gave up).
  void allocate_buffers(std::size_t send_bytes, std::size_t recv_bytes, const std::string& what);

  World& world_;
  Backend& backend_;
  RunControl& control_;
  SweepConfig config_;
  std::unique_ptr<Buffer> send_;
  std::unique_ptr<Buffer> recv_;
  FaultPoints no_faults_;  // the points' defaults: nothing happens
  FaultPoints& faults_;
  WindowObserver* gpu_state_;
  bool per_iteration_ = false;  // --per-iteration on, and no more iterations than are kept
};

}  // namespace commsweep
