// What NCCL chose for each collective (algorithm, protocol, channels), read from commsweep's
// own NCCL profiler plugin (src/nccl_profiler/, libcommsweep-nccl-profiler.so) in this process.
//
// Why a profiler plugin and not NCCL's TUNING INFO lines: the plugin interface hands every task's
// choice over as fields (no log format to parse, which NCCL changes between versions), on every
// rank (NCCL prints TUNING lines on rank 0 only), per call (a line per launch would have to be
// matched to the sweep's rows by size and order), with NCCL_DEBUG left as the user set it. The
// TUNING lines remain the cross-check (scripts/check-nccl-algo.py). No NCCL header is needed
// here: this builds and is tested without NCCL (tests/unit/nccl_profiler_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nccl_profiler/records.h"
#include "report/result.hpp"

namespace commsweep {

// The plugin's file name, built beside the commsweep binary (and installed beside it in lib/).
inline constexpr const char* kNcclProfilerFile = "libcommsweep-nccl-profiler.so";

// Where the plugin is for the binary at EXE: EXE's folder, else its ../lib; "" when in neither.
std::string nccl_profiler_path(const std::string& exe);

// Whether commsweep's plugin can be used, decided before the communicator is made, from the
// user's NCCL_PROFILER_PLUGIN (VALUE, null when unset) and the plugin found (PLUGIN, "" when
// none): use it (and set NCCL_PROFILER_PLUGIN to it when unset), or why not.
struct ProfilerPlan {
  bool use = false;
  bool set_variable = false;  // NCCL_PROFILER_PLUGIN is to be set to `path`
  std::string path;
  std::string why_not;  // e.g. "NCCL_PROFILER_PLUGIN=/x/libnccl-profiler-y.so is the user's"
};
ProfilerPlan plan_nccl_profiler(const char* value, const std::string& plugin);

// The plugin's records in this process (opened with dlopen: the same object NCCL loaded from the
// same file). Move-only; closes its reference on destruction.
class NcclProfilerRecords {
 public:
  NcclProfilerRecords() = default;
  // Opens PATH; available() says whether it is commsweep's plugin of this build's ABI, and
  // why_not() why not.
  explicit NcclProfilerRecords(const std::string& path);
  ~NcclProfilerRecords();
  NcclProfilerRecords(NcclProfilerRecords&& other) noexcept;
  NcclProfilerRecords& operator=(NcclProfilerRecords&& other) noexcept;
  NcclProfilerRecords(const NcclProfilerRecords&) = delete;
  NcclProfilerRecords& operator=(const NcclProfilerRecords&) = delete;

  bool available() const { return recorded_ != nullptr; }
  const std::string& why_not() const { return why_not_; }
  // Before the communicator's init: whether it asks NCCL for the kernels' timestamps.
  void time_kernels(bool on) const;
  // Whether an init asked NCCL for them (so that each record gets its kernel's span).
  bool kernels_timed() const;
  // NCCL's task events (what it chose per task) on or off for what it enqueues from now on. Off,
  // NCCL starts no event of the plugin's: the table's pass runs so (a loaded profiler still costs
  // NCCL some time, which is why it is loaded only with --show-algo: docs/iterations.md).
  void task_events(bool on) const;
  // The most records held: the kernels' times of a run are read only where its tasks all fit.
  static constexpr std::size_t kHeld = COMMSWEEP_NCCL_RECORDS_HELD;
  // How many tasks were recorded so far: a mark to read the next ones after.
  std::uint64_t mark() const;
  // The records after MARK still held (the plugin keeps the last kHeld).
  std::vector<commsweep_nccl_record> since(std::uint64_t mark) const;

 private:
  void* handle_ = nullptr;
  std::uint64_t (*recorded_)() = nullptr;
  int (*records_since_)(std::uint64_t, commsweep_nccl_record*, int) = nullptr;
  void (*time_kernels_)(int) = nullptr;
  int (*kernels_timed_)() = nullptr;
  void (*task_events_)(int) = nullptr;
  std::string why_not_;
};

// NCCL's choice for the tasks of one timed run: the algorithm, protocol and channels of its
// collective tasks (the most frequent choice, the source saying "k of n" where they differed);
// for point-to-point tasks (sendrecv, alltoall: NCCL chooses no algorithm for them) "P2P", "-"
// and the most channels; "unknown (...)" when none was recorded.
report::NcclChoice nccl_choice_of(const std::vector<commsweep_nccl_record>& records);

// Every iteration's time from the kernels' own timestamps: RECORDS, the tasks of one timed run
// of ITERATIONS iterations (the same number of tasks each, in the order NCCL launched them),
// each iteration from its tasks' latest channel start to their latest channel end on the GPU's
// %globaltimer (records.h says why the latest start). Complete when every task's channels that started also stopped (NCCL's proxy
// thread hands them over after the kernel ran; a collective has as many as its channels), and
// every iteration has a task that reported. A task none of whose channels reported may be one
// with nothing to move (a send to itself): it counts as done only where SILENT_DONE (the caller
// saw the reports settle).
struct KernelTimes {
  bool complete = false;
  std::vector<double> iteration_us;  // when complete
  int silent = 0;                    // tasks with no channel reported
  std::string why_not;               // when not: "3 of 20 NCCL tasks have not all their kernel channels' ends"
};
KernelTimes kernel_iteration_times(const std::vector<commsweep_nccl_record>& records, int iterations,
                                   bool silent_done = false);

}  // namespace commsweep
