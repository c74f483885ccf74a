#include "comm/nccl/nccl_backend.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <thread>

#include "comm/nccl/nccl_call.hpp"
#include "nccl_device_api.hpp"
#include "runtime/cuda_check.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"

// The nccl.h included must be the one CMake found (cmake/FindNCCL.cmake, NCCL_ROOT): the CUDA
// toolkit's include folder holds another NCCL's, which may come first on the include path.
#if defined(COMMSWEEP_NCCL_FOUND_VERSION_CODE) && NCCL_VERSION_CODE != COMMSWEEP_NCCL_FOUND_VERSION_CODE
#error "nccl.h on the include path is not the NCCL that CMake found (NCCL_INCLUDE_DIR): another NCCL's headers come first"
#endif

namespace commsweep {
namespace {

Error nccl_error(ncclResult_t rc, const char* call, const char* file, int line) {
  std::string message = std::string(call) + " failed: " + ncclGetErrorString(rc);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') message += " (NCCL: " + std::string(last) + ")";
  return Error(ErrorKind::Nccl, message, call, file, line);
}


ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::Int8: return ncclInt8;
    case DataType::Uint8: return ncclUint8;
    case DataType::Int32: return ncclInt32;
    case DataType::Uint32: return ncclUint32;
    case DataType::Int64: return ncclInt64;
    case DataType::Uint64: return ncclUint64;
    case DataType::Float16: return ncclFloat16;
    case DataType::Float32: return ncclFloat32;
    case DataType::Float64: return ncclFloat64;
    case DataType::Bfloat16: return ncclBfloat16;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DataType::Float8E4M3: return ncclFloat8e4m3;
    case DataType::Float8E5M2: return ncclFloat8e5m2;
#else
    case DataType::Float8E4M3: case DataType::Float8E5M2: break;  // refused by unsupported()
#endif
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::Sum: return ncclSum;
    case RedOp::Prod: return ncclProd;
    case RedOp::Max: return ncclMax;
    case RedOp::Min: return ncclMin;
    case RedOp::Avg: return ncclAvg;
    case RedOp::None: break;
  }
  return ncclSum;
}

class DeviceBuffer final : public Buffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) CS_CUDA(cudaMalloc(&data_, bytes_));
  }
  ~DeviceBuffer() override {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

}  // namespace

NcclVersions nccl_versions() {
  NcclVersions v;
  v.headers = NCCL_VERSION_CODE;
  if (ncclGetVersion(&v.library) != ncclSuccess) v.library = 0;
  return v;
}

NcclBackend* as_nccl_backend(Backend& backend) { return dynamic_cast<NcclBackend*>(&backend); }

nccl_policy::Versions nccl_policy_versions() {
  const NcclVersions v = nccl_versions();
  nccl_policy::Versions p;
  p.headers = v.headers;
  p.library = v.library;
  p.device_api_built = kernels::kNcclDeviceApiBuilt;
  if (const char* jit = std::getenv("NCCL_DEV_API_JIT"); jit != nullptr) p.dev_api_jit = jit;
  return p;
}

NcclBackend::NcclBackend(World& world, const GpuChoice& gpu, const Phase& init, bool time_kernels, bool nccl_choice)
    : world_(world), device_(gpu.device) {
  // Before any other NCCL call: a library the policy refuses (older than the headers) may lack
  // the symbols and structures they describe. Exit code 3, as any NCCL failure.
  if (const auto host = nccl_policy::decide("host_collectives", nccl_policy_versions());
      host.refused()) {
    throw Error(ErrorKind::Runtime, host.message);
  }
  CS_CUDA(cudaSetDevice(device_));
  cudaDeviceProp prop{};
  CS_CUDA(cudaGetDeviceProperties(&prop, device_));
  compute_major_ = prop.major;
  CS_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  CS_CUDA(cudaEventCreate(&start_));
  CS_CUDA(cudaEventCreate(&stop_));
  CS_CUDA(cudaMalloc(reinterpret_cast<void**>(&mismatch_), sizeof(kernels::DeviceMismatch)));

  prepare_profiler(time_kernels, nccl_choice);

  ncclUniqueId id{};
  if (world_.rank() == 0) {
    const ncclResult_t rc = ncclGetUniqueId(&id);
    if (rc != ncclSuccess) throw nccl_error(rc, "ncclGetUniqueId(&id)", __FILE__, __LINE__);
  }
  world_.broadcast(&id, sizeof(id), 0, init);  // doubles as the arrival check before set-up

  // A blocking communicator: in non-blocking mode NCCL completes every group on a helper
  // thread, which costs tens of microseconds per collective (measured: 70-110 us instead of
  // 10 us for small all_reduce on 4 x H200). Hangs are still bounded: the barrier above names
  // ranks that never reach set-up, collectives are waited on by polling their completion
  // event against the deadline, and the watchdog thread ends a set-up that never returns.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  const ncclResult_t rc = ncclCommInitRankConfig(&comm_, world_.size(), id, world_.rank(), &config);
  if (comm_ != nullptr) world_.set_abort_hook([comm = comm_] { ncclCommAbort(comm); });
  settle(rc, "ncclCommInitRankConfig", __FILE__, __LINE__, init);
  // The plugin's task events only in the runs that record NCCL's choice (run()): elsewhere, the
  // table's pass above all, NCCL starts no event of the plugin's (docs/iterations.md).
  if (profiler_.available()) profiler_.task_events(false);
}

NcclBackend::~NcclBackend() {
  if (comm_ != nullptr) {
    world_.set_abort_hook(nullptr);
    // Unwinding from an error (a timeout, a failed call): the communicator may be stuck, and
    // finalizing a stuck communicator blocks; abort it so the job can end.
    if (std::uncaught_exceptions() > 0) {
      ncclCommAbort(comm_);
      comm_ = nullptr;
    }
  }
  if (comm_ != nullptr) {
    // Finalize flushes outstanding work; a communicator that will not finalize is aborted.
    ncclResult_t state = ncclCommFinalize(comm_);
    const auto deadline = Deadline::after(30);
    while (state == ncclInProgress && !deadline.passed()) {
      ncclCommGetAsyncError(comm_, &state);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (state == ncclSuccess) {
      ncclCommDestroy(comm_);
    } else {
      ncclCommAbort(comm_);
    }
  }
  for (cudaEvent_t e : iteration_events_) cudaEventDestroy(e);
  if (mismatch_ != nullptr) cudaFree(mismatch_);
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void NcclBackend::prepare_profiler(bool time_kernels, bool nccl_choice) {
  if (!nccl_choice && !time_kernels) {
    // Not asked for: NCCL loads no profiler of commsweep's (NCCL_PROFILER_PLUGIN stays as the
    // user set it), as under nccl-tests. Nothing is said before the tables: nobody asked.
    last_choice_ = {"not recorded (--show-algo)", "not recorded", 0,
                    "commsweep's NCCL profiler plugin is loaded only with --show-algo (docs/iterations.md)"};
    return;
  }
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  const std::string self = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : std::string();
  const ProfilerPlan plan = plan_nccl_profiler(std::getenv("NCCL_PROFILER_PLUGIN"), nccl_profiler_path(self));
  if (plan.use) {
    // Opened first: NCCL's dlopen of the same file then finds it loaded (one object, one store).
    profiler_ = NcclProfilerRecords(plan.path);
    if (!profiler_.available()) {
      profiler_note_ = profiler_.why_not();
    } else {
      if (plan.set_variable) setenv("NCCL_PROFILER_PLUGIN", plan.path.c_str(), 0);  // before ncclCommInitRankConfig reads it
      profiler_.time_kernels(time_kernels);
    }
  } else {
    profiler_note_ = plan.why_not;
  }
  if (!profiler_note_.empty()) {
    last_choice_ = {"unknown (no profiler)", "unknown", 0, profiler_note_};
  }
}

void NcclBackend::ensure_iteration_events(std::size_t n) {
  while (iteration_events_.size() < n) {
    cudaEvent_t e = nullptr;
    CS_CUDA(cudaEventCreate(&e));
    iteration_events_.push_back(e);
  }
}

void NcclBackend::read_iteration_times(std::size_t n, double per_event, std::vector<double>& out) {
  out.clear();
  for (std::size_t i = 0; i + 1 < n; ++i) {
    float ms = 0;
    CS_CUDA(cudaEventElapsedTime(&ms, iteration_events_[i], iteration_events_[i + 1]));
    out.push_back(static_cast<double>(ms) * 1000.0 / per_event);
  }
}

bool NcclBackend::kernel_clock_for(int iters) const {
  // A task per collective; alltoall and the other send/receive patterns at most a send and a
  // receive per rank.
  const auto most_tasks = static_cast<std::size_t>(iters) * 2 * static_cast<std::size_t>(world_.size());
  return kernel_clock_misses_ < kMaxKernelClockMisses && profiler_.available() && profiler_.kernels_timed() &&
         most_tasks <= NcclProfilerRecords::kHeld;
}

bool NcclBackend::read_kernel_times(std::uint64_t mark, int iters, std::vector<double>& out,
                                    std::vector<commsweep_nccl_record>& records) {
  out.clear();
  // NCCL's proxy thread reports each channel's end after the kernel wrote it: moments after the
  // stream's last event. Complete twice in a row, 50 us apart, with the same channels reported:
  // a task's channels are handed over one by one. Tasks with no channel reported (nothing to
  // move: a send to itself) count as done once the others' reports stood still for 5 ms.
  using Clock = Deadline::Clock;
  const auto until = Clock::now() + std::chrono::seconds(1);
  KernelTimes times;
  long reported = -1;
  auto still_since = Clock::now();
  for (;;) {
    records = profiler_.since(mark);
    long now = 0;
    for (const auto& r : records) now += r.kernel_channels_started + r.kernel_channels_stopped;
    if (now != reported) still_since = Clock::now();
    const bool settled = now == reported;
    times = kernel_iteration_times(records, iters, Clock::now() - still_since > std::chrono::milliseconds(5));
    if (times.complete && settled) break;
    reported = now;
    if (Clock::now() > until) break;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (!times.complete) {
    ++kernel_clock_misses_;
    std::cerr << "commsweep: rank " << world_.rank() << ": NCCL's kernel timestamps did not come complete within 1 s ("
              << times.why_not << "): this half keeps no per-iteration times"
              << (kernel_clock_misses_ < kMaxKernelClockMisses ? "" : "; CUDA events time the iterations from now on")
              << "\n";
    return false;
  }
  kernel_clock_misses_ = 0;
  out = std::move(times.iteration_us);
  return true;
}

// A non-blocking communicator answers ncclInProgress while work is under way: poll until it
// settles, and end the phase through the stall protocol when the deadline passes.
void NcclBackend::settle(ncclResult_t rc, const char* call, const char* file, int line,
                         const Phase& phase) {
  while (rc == ncclInProgress) {
    if (phase.deadline.passed()) world_.stall(phase);
    std::this_thread::yield();
    if (ncclCommGetAsyncError(comm_, &rc) != ncclSuccess) break;
  }
  if (rc != ncclSuccess) fail(nccl_error(rc, call, file, line));
}

void NcclBackend::fail(const Error& e) {
  world_.fail(error_line(world_.rank(), world_.host(), device_, e), e.what(), e.exit_code());
}

std::string NcclBackend::asynchronous_error() {
  const std::lock_guard<std::mutex> lock(probe_mutex_);
  if (comm_ == nullptr) return {};
  ncclResult_t state = ncclSuccess;
  if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) return {};
  if (state == ncclSuccess || state == ncclInProgress) return {};
  const char* last = ncclGetLastError(comm_);
  return std::string("NCCL asynchronous error: ") + ncclGetErrorString(state) +
         (last != nullptr && *last != '\0' ? std::string(" (") + last + ")" : std::string());
}

void NcclBackend::abort_transport(const char* why) {
  (void)why;  // NCCL's own asynchronous error says what the peers see
  const std::lock_guard<std::mutex> lock(probe_mutex_);
  if (comm_ == nullptr) return;
  // The World's abort hook holds the communicator too: cleared first, so that a later abort
  // (this rank's watchdog) does not abort it twice.
  world_.set_abort_hook(nullptr);
  ncclCommAbort(comm_);
  comm_ = nullptr;
}

void NcclBackend::check_async_error() {
  ncclResult_t state = ncclSuccess;
  ncclCommGetAsyncError(comm_, &state);
  if (state != ncclSuccess && state != ncclInProgress) {
    fail(nccl_error(state, "ncclCommGetAsyncError (asynchronous error)", __FILE__, __LINE__));
  }
}

void NcclBackend::wait_event(cudaEvent_t event, const Phase& phase) {
  for (unsigned spin = 0;; ++spin) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaSuccess) return;
    if (rc != cudaErrorNotReady) {
      fail(Error(ErrorKind::Cuda, std::string("cudaEventQuery failed: ") + cudaGetErrorString(rc),
                 "cudaEventQuery", __FILE__, __LINE__));
    }
    if ((spin & 1023u) == 0) {
      check_async_error();
      if (phase.deadline.passed()) world_.stall(phase);
    }
    std::this_thread::yield();
  }
}

void NcclBackend::wait_stream(const Phase& phase) {
  CS_CUDA(cudaEventRecord(stop_, stream_));
  wait_event(stop_, phase);
}

std::string NcclBackend::unsupported(DataType type, RedOp) const {
  if (type != DataType::Float8E4M3 && type != DataType::Float8E5M2) return {};
  if (NCCL_VERSION_CODE < NCCL_VERSION(2, 24, 0)) {
    return "fp8 needs NCCL 2.24 or newer (built against " + nccl_version_text(NCCL_VERSION_CODE) + ")";
  }
  if (compute_major_ < 9) return "NCCL supports fp8 only on compute capability 9.0 and newer";
  return {};
}

std::unique_ptr<Buffer> NcclBackend::allocate(std::size_t bytes) {
  return std::make_unique<DeviceBuffer>(bytes);
}

MemoryRoom NcclBackend::memory_room() const {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();  // unknown: nothing is refused, and the allocation says what it finds
    return {};
  }
  return {free_bytes, "free on GPU " + std::to_string(device_) + " (of its " + binary_size_text(total_bytes) +
                          ", after NCCL's set-up: cudaMemGetInfo)"};
}

void NcclBackend::fill(void* buffer, std::size_t count, const pattern::Spec& spec, int rank) {
  CS_CUDA(kernels::launch_fill(buffer, count, spec, rank, stream_));
}

void NcclBackend::poison(void* buffer, std::size_t count, const pattern::Expect& expect) {
  CS_CUDA(kernels::launch_poison(buffer, count, expect, stream_));
}

Mismatch NcclBackend::verify(const void* buffer, std::size_t count, const pattern::Expect& expect) {
  kernels::DeviceMismatch host{0, ~0ull};
  CS_CUDA(cudaMemcpyAsync(mismatch_, &host, sizeof(host), cudaMemcpyHostToDevice, stream_));
  CS_CUDA(kernels::launch_verify(buffer, count, expect, mismatch_, stream_));
  CS_CUDA(cudaMemcpyAsync(&host, mismatch_, sizeof(host), cudaMemcpyDeviceToHost, stream_));
  CS_CUDA(cudaStreamSynchronize(stream_));
  Mismatch m;
  m.wrong = host.wrong;
  if (m.wrong > 0) {
    m.first_index = host.first_index;
    m.expected = pattern::expected_bits(expect, m.first_index) & pattern::width_mask(expect.spec.fmt);
    const auto* at = static_cast<const unsigned char*>(buffer) + m.first_index * expect.spec.fmt.bytes;
    CS_CUDA(cudaMemcpy(&m.got, at, expect.spec.fmt.bytes, cudaMemcpyDeviceToHost));
  }
  return m;
}

void NcclBackend::corrupt(void* buffer, std::size_t index, std::size_t element_bytes) {
  auto* at = static_cast<unsigned char*>(buffer) + index * element_bytes;
  unsigned char byte = 0;
  CS_CUDA(cudaStreamSynchronize(stream_));
  CS_CUDA(cudaMemcpy(&byte, at, 1, cudaMemcpyDeviceToHost));
  byte ^= 0x01;
  CS_CUDA(cudaMemcpy(at, &byte, 1, cudaMemcpyHostToDevice));
}

// The collective's own NCCL call (comm/calls/<name>.cpp), on this rank's stream.
void NcclBackend::issue(const CollectiveArgs& a, const Phase& phase) {
  const NcclCallContext ctx{*this,         phase,         comm_,
                            stream_,       world_.rank(), world_.size(),
                            nccl_type(a.type), nccl_op(a.op), element_size(a.type)};
  a.call->nccl_issue(ctx, a);
}

double NcclBackend::run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) {
  // Fills and poisons queued on the stream finish before the clock starts.
  wait_stream(phase);
  const std::uint64_t mark = profiler_.mark();
  int launches = 1;
  cudaGraphExec_t exec = nullptr;
  if (timing.graph_launches > 0) {
    launches = timing.graph_launches;
    cudaGraph_t graph = nullptr;
    CS_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    // The graph keeps each captured call's pointers: launch i reads and writes its own slice
    // (--buffers cold), every replay the same sequence of slices.
    for (int i = 0; i < timing.iters; ++i) issue(at_offset(args, timing.slices.offset(i)), phase);
    CS_CUDA(cudaStreamEndCapture(stream_, &graph));
    CS_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CS_CUDA(cudaGraphDestroy(graph));
  }
  // Per iteration (only a run that keeps them: the sweep's tails' pass, never the table's): an
  // event on the stream between the iterations (between the graph launches with -G), whose
  // cudaEventRecord is on the host's issue path and makes the GPU finish each collective before
  // it stamps the time and starts the next. NCCL's kernels' own timestamps only where the
  // communicator's init asked for them (BackendOptions::time_kernels), which no command does
  // since issue 40: every task then pays for them, the table's too (docs/iterations.md).
  const bool kernel_clock = timing.iteration_us != nullptr && exec == nullptr && kernel_clock_for(timing.iters);
  const bool each = timing.iteration_us != nullptr && !kernel_clock;
  const std::size_t marks = static_cast<std::size_t>(exec != nullptr ? launches : timing.iters) + 1;
  if (each) ensure_iteration_events(marks);
  const bool record_choice = timing.record_choice && profiler_.available();
  if (record_choice) profiler_.task_events(true);
  const auto host_start = Deadline::Clock::now();
  CS_CUDA(cudaEventRecord(start_, stream_));
  if (each) CS_CUDA(cudaEventRecord(iteration_events_[0], stream_));
  if (exec != nullptr) {
    for (int l = 0; l < launches; ++l) {
      CS_CUDA(cudaGraphLaunch(exec, stream_));
      if (each) CS_CUDA(cudaEventRecord(iteration_events_[static_cast<std::size_t>(l) + 1], stream_));
    }
  } else {
    for (int i = 0; i < timing.iters; ++i) {
      issue(at_offset(args, timing.slices.offset(i)), phase);
      if (each) CS_CUDA(cudaEventRecord(iteration_events_[static_cast<std::size_t>(i) + 1], stream_));
      if (timing.blocking) wait_stream(phase);
    }
  }
  CS_CUDA(cudaEventRecord(stop_, stream_));
  wait_event(stop_, phase);
  const auto host_stop = Deadline::Clock::now();
  if (record_choice) profiler_.task_events(false);  // enqueued: NCCL reads the mask as it enqueues
  if (exec != nullptr) CS_CUDA(cudaGraphExecDestroy(exec));
  if (each) read_iteration_times(marks, exec != nullptr ? timing.iters : 1, *timing.iteration_us);
  std::vector<commsweep_nccl_record> records;  // this run's tasks, read once where the kernels were timed
  if (timing.iteration_us != nullptr) {
    iteration_clock_ = kernel_clock && read_kernel_times(mark, timing.iters, *timing.iteration_us, records)
                           ? "nccl-kernel"
                           : "cuda-events";
  }
  if (record_choice) last_choice_ = nccl_choice_of(records.empty() ? profiler_.since(mark) : records);
  const double per_op = static_cast<double>(timing.iters) * launches;
  if (!timing.device_timer) {
    return std::chrono::duration<double, std::micro>(host_stop - host_start).count() / per_op;
  }
  float ms = 0;
  CS_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return static_cast<double>(ms) * 1000.0 / per_op;
}

}  // namespace commsweep
