// The nccl backend: device buffers, one stream, one communicator over all ranks.
// Rank 0 makes the ncclUniqueId, MPI_Bcast shares it (with a deadline: a rank that never
// arrives is named), ncclCommInitRankConfig joins. Every collective is waited on by polling
// its completion against the deadline, with ncclCommGetAsyncError checked meanwhile; a hang
// ends in ncclCommAbort and MPI_Abort instead of waiting forever.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <mutex>
#include <string>
#include <vector>

#include "comm/backend.hpp"
#include "comm/nccl_profiler_reader.hpp"
#include "comm/nccl_version.hpp"
#include "nccl_policy/policy.hpp"
#include "pattern_kernels.hpp"
#include "core/error.hpp"
#include "runtime/gpu.hpp"

namespace commsweep {

struct NcclVersions {
  int headers = 0;  // NCCL_VERSION_CODE this binary was built against
  int library = 0;  // ncclGetVersion() of the library loaded at run time
};
NcclVersions nccl_versions();
// The NCCL version policy's inputs in this process: the headers, the library, whether the
// device API was built (nccl_device.h), NCCL_DEV_API_JIT from the environment.
nccl_policy::Versions nccl_policy_versions();

class NcclBackend;
// BACKEND as the nccl backend, or nullptr where it is another (what an exchange that needs NCCL's
// communicator asks before it is made: the EP implementations' descriptors).
NcclBackend* as_nccl_backend(Backend& backend);

class NcclBackend final : public Backend {
 public:
  // NCCL_CHOICE: NCCL's choice per run is recorded (commsweep's profiler plugin is loaded; else
  // it is not, and last_choice() says so). TIME_KERNELS: every iteration is to be timed by NCCL's
  // kernels' own timestamps (the plugin asks NCCL for them at the communicator's init;
  // comm/nccl_profiler_reader.hpp); it loads the plugin too.
  NcclBackend(World& world, const GpuChoice& gpu, const Phase& init, bool time_kernels, bool nccl_choice);
  ~NcclBackend() override;
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string_view name() const override { return "nccl"; }
  std::string unsupported(DataType type, RedOp op) const override;
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  MemoryRoom memory_room() const override;
  void fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) override;
  void poison(void* buffer, std::size_t count, const pattern::Expect& expect) override;
  Mismatch verify(const void* buffer, std::size_t count, const pattern::Expect& expect) override;
  void corrupt(void* buffer, std::size_t index, std::size_t element_bytes) override;
  void synchronize(const Phase& phase) override { wait_stream(phase); }
  double run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) override;
  report::NcclChoice last_choice() const override { return last_choice_; }
  std::string choice_note() const override { return profiler_note_; }
  std::string iteration_clock() const override { return iteration_clock_; }
  // ncclCommGetAsyncError, which NCCL allows from another thread (its documented pattern for
  // aborting a communicator that a blocked thread is using).
  std::string asynchronous_error() override;
  // Aborts this rank's communicator (ncclCommAbort) and leaves the peers to find out.
  void abort_transport(const char* why) override;

  // For other exchanges on the same communicator (the EP sweep).
  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  // Waits for `event` on this rank's stream, polled against the deadline as every collective.
  void wait(cudaEvent_t event, const Phase& phase) { wait_event(event, phase); }
  // Checks an NCCL call's result, waiting out ncclInProgress against the deadline; a failure
  // ends the job in place (fail below).
  void check(ncclResult_t rc, const char* call, const char* file, int line, const Phase& phase) {
    settle(rc, call, file, line, phase);
  }

 private:
  void issue(const CollectiveArgs& args, const Phase& phase);
  void settle(ncclResult_t rc, const char* call, const char* file, int line, const Phase& phase);
  void wait_event(cudaEvent_t event, const Phase& phase);
  void wait_stream(const Phase& phase);
  void check_async_error();
  // Before the communicator: commsweep's NCCL profiler plugin, NCCL_PROFILER_PLUGIN set to it
  // where the user set none (comm/nccl_profiler_reader.hpp), or the note saying why not.
  void prepare_profiler(bool time_kernels, bool nccl_choice);
  // Whether a run of ITERS iterations is timed one by one by NCCL's kernel timestamps: the plugin
  // asked NCCL for them, they came complete so far, and the run's tasks all fit in its records.
  bool kernel_clock_for(int iters) const;
  // Each iteration's time from the kernels' timestamps of the tasks after MARK, once NCCL's proxy
  // thread has handed them all over; false if it has not within a second (the run then keeps no
  // per-iteration times; after kMaxKernelClockMisses such runs in a row, CUDA events time the
  // later runs).
  // RECORDS: the tasks after MARK as last read (for NCCL's choice, not read again).
  bool read_kernel_times(std::uint64_t mark, int iters, std::vector<double>& out,
                         std::vector<commsweep_nccl_record>& records);
  // At least N timing events (per-iteration timing), created once and kept.
  void ensure_iteration_events(std::size_t n);
  // Each iteration's time from the events EVENTS[0..n] (ms to us, divided by PER_EVENT ops).
  void read_iteration_times(std::size_t n, double per_event, std::vector<double>& out);
  // An error of the data plane (a failed NCCL call, an asynchronous error, a failed wait) ends
  // the job where it is found (World::fail), not by unwinding: kernels of this communicator
  // may still be running, and the unwinding's cudaFree would wait for them.
  [[noreturn]] void fail(const Error& e);

  World& world_;
  int device_;
  int compute_major_ = 0;
  ncclComm_t comm_ = nullptr;
  // Held by asynchronous_error() (the watchdog thread) and the injected abort, so that the
  // probe never reads a communicator being freed. The main thread's own uses need no lock.
  std::mutex probe_mutex_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  kernels::DeviceMismatch* mismatch_ = nullptr;  // device memory for verify
  std::vector<cudaEvent_t> iteration_events_;     // --per-iteration: one between iterations
  NcclProfilerRecords profiler_;
  std::string profiler_note_;  // "" while the plugin is in use
  report::NcclChoice last_choice_;
  // On 4 x H200 one task in 160 of an alltoall once kept a channel's end; a run that misses
  // them 3 times in a row has a plugin or an NCCL that does not hand them over.
  static constexpr int kMaxKernelClockMisses = 3;
  int kernel_clock_misses_ = 0;  // runs in a row whose kernel timestamps came incomplete
  std::string iteration_clock_ = "cuda-events";  // what timed the last run's iterations
};

}  // namespace commsweep
