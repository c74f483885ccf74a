#include "run/gpu_window_observer.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "core/error.hpp"
#include "health/nvml_loader.hpp"
#include "run/gpu_sampler.hpp"
#include "run/nvml_recording_env.hpp"

namespace commsweep {
namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "00000000:19:00.0" (NVML) and "0000:19:00.0" (CUDA) are one bus id: the domain as a number,
// the rest as text, case aside.
std::string bus_key(const std::string& id) {
  const auto colon = id.find(':');
  if (colon == std::string::npos) return id;
  std::string rest = id.substr(colon + 1);
  for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::to_string(std::strtoul(id.substr(0, colon).c_str(), nullptr, 16)) + ":" + rest;
}

}  // namespace

report::GpuSample read_gpu_sample(health::NvmlApi& nvml, unsigned gpu, WindowEnd end) {
  using health::PerfPolicy;
  report::GpuSample s;
  s.gpu = gpu;
  auto ok = [](int rc) { return rc == health::nvml_rc::kSuccess; };
  std::uint64_t u64 = 0;
  unsigned a = 0, b = 0;
  const auto counters = [&] {
    s.host_us = now_us();
    if (ok(nvml.total_energy(gpu, &u64))) s.energy_mj = u64;
    for (int i = 0; i < report::kViolationCounters; ++i) {
      std::uint64_t ref = 0;
      if (ok(nvml.violation_time(gpu, static_cast<PerfPolicy>(i), &ref, &u64))) {
        s.violation_ns[static_cast<std::size_t>(i)] = u64;
        // NVML's timestamp of the reading; the last policy's at both ends, so that the window
        // is measured between the same calls.
        s.reference_us = ref;
      }
    }
  };
  if (end == WindowEnd::End) counters();
  if (ok(nvml.clocks(gpu, &a, &b))) s.sm_mhz = a, s.mem_mhz = b;
  if (end == WindowEnd::Start) {
    counters();
    return s;
  }
  if (ok(nvml.temperature(gpu, &a))) s.temperature_c = a;
  if (ok(nvml.power(gpu, &a, &b))) s.power_mw = a, s.power_limit_mw = b;
  if (ok(nvml.clock_event_reasons(gpu, &u64))) s.event_reasons = u64;
  return s;
}

namespace {

// How the live NVML is read, from COMMSWEEP_GPU_STATE: unset or "sampled", "ends" (or "1", its
// name before sampling), "0".
enum class LiveReads { Sampled, Ends, Off };

LiveReads live_reads() {
  const char* v = std::getenv("COMMSWEEP_GPU_STATE");
  if (!v || !*v) return LiveReads::Sampled;
  const std::string s(v);
  if (s == "sampled") return LiveReads::Sampled;
  if (s == "ends" || s == "1") return LiveReads::Ends;
  if (s == "0") return LiveReads::Off;
  throw_usage("COMMSWEEP_GPU_STATE=" + s + ": not sampled, ends or 0 (docs/gpu-state.md)");
}

// The sampler's period: a window shorter than it shares its samples with its neighbours.
constexpr std::chrono::milliseconds kSamplePeriod{100};

}  // namespace

NvmlWindowObserver::NvmlWindowObserver(const std::string& backend, int local_rank, const std::string& bus_id) {
  const LiveReads reads = live_reads();
  if (reads == LiveReads::Off) {
    not_read_ = "COMMSWEEP_GPU_STATE=0";
    return;
  }
  const bool live = open(backend, local_rank, bus_id);
  unsigned mhz = 0;
  if (nvml_ && nvml_->max_sm_clock(gpu_, &mhz) == health::nvml_rc::kSuccess) max_sm_mhz_ = mhz;
  if (!nvml_) return;
  if (live && reads == LiveReads::Sampled) {
    sampler_ = std::make_unique<GpuSampler>(*nvml_, gpu_, kSamplePeriod);
    mark_ = std::make_unique<SamplerMark>(sampler_->mark());
  }
}

bool NvmlWindowObserver::open(const std::string& backend, int local_rank, const std::string& bus_id) {
  if (NvmlRecording recording = nvml_recording(); recording.nvml) {
    nvml_ = std::move(recording.nvml);
    unsigned count = 0;
    nvml_->device_count(&count);
    if (static_cast<unsigned>(local_rank) >= count)
      throw_usage(recording.named + ": " + std::to_string(count) + " GPUs recorded, and local rank " +
                  std::to_string(local_rank) + " reads GPU " + std::to_string(local_rank));
    gpu_ = static_cast<unsigned>(local_rank);
    return false;
  }
  if (backend != "nccl") {
    not_read_ = "the " + backend + " backend uses no GPU";
    return false;
  }
  nvml_ = health::load_nvml();
  if (!nvml_->unavailable().empty()) {
    not_read_ = nvml_->unavailable();
    nvml_.reset();
    return false;
  }
  unsigned count = 0;
  nvml_->device_count(&count);
  for (unsigned i = 0; i < count; ++i) {
    std::string id;
    if (nvml_->pci_bus_id(i, &id) == health::nvml_rc::kSuccess && bus_key(id) == bus_key(bus_id)) {
      gpu_ = i;
      return true;
    }
  }
  not_read_ = "NVML has no GPU of PCI bus id " + (bus_id.empty() ? std::string("(none)") : bus_id);
  nvml_.reset();
  return false;
}

NvmlWindowObserver::~NvmlWindowObserver() = default;

void NvmlWindowObserver::window_starts() {
  if (!nvml_) return;
  // No NVML call when sampled: the samples the window may take are copied.
  if (sampler_) *mark_ = sampler_->mark();
  else start_ = read_now(WindowEnd::Start);
}

std::optional<WindowSamples> NvmlWindowObserver::window_ends() {
  if (!nvml_) return std::nullopt;
  WindowSamples w;
  if (sampler_) {
    const auto [start, end] = sampler_->window(*mark_);
    w.start = start.sample;
    w.end = end.sample;
  } else {
    if (!start_) return std::nullopt;
    w.start = *start_;
    w.end = read_now(WindowEnd::End);
    start_.reset();
  }
  w.start.max_sm_mhz = w.end.max_sm_mhz = max_sm_mhz_;
  return w;
}

report::GpuSample NvmlWindowObserver::read_now(WindowEnd end) {
  const double start = now_us();
  // The calls run on a thread of their own while this one spins: NVML's calls sleep in the
  // driver for milliseconds on some hosts, and a measuring thread that slept there issued its
  // next collectives up to 1.5x slower for a while after (its core idled: the default -n 20
  // table was 20% slower than with the reads off; docs/figures.md). The spinning keeps its core
  // busy. What the reader throws is thrown here.
  report::GpuSample s;
  std::exception_ptr failed;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    try {
      s = read_gpu_sample(*nvml_, gpu_, end);
    } catch (...) {
      failed = std::current_exception();
    }
    done.store(true, std::memory_order_release);
  });
  while (!done.load(std::memory_order_acquire)) {
  }
  reader.join();
  if (failed) std::rethrow_exception(failed);
  read_us_ += now_us() - start;
  ++reads_;
  return s;
}

long NvmlWindowObserver::reads() const { return sampler_ ? sampler_->reads() : reads_; }

double NvmlWindowObserver::read_us() const { return sampler_ ? sampler_->read_us() : read_us_; }

std::string gpu_state_note(const NvmlWindowObserver& observer) {
  if (!observer.not_read().empty()) return "GPU state per window: not read: " + observer.not_read();
  if (observer.reads() == 0) return "";
  const char* how = observer.sampled()
                        ? "sampled at each 100 ms slot of the host's clock on a thread of its own, nothing read "
                          "between the rows"
                        : "read at each window's two ends, outside every timed pass";
  char line[400];
  std::snprintf(line, sizeof line, "GPU state per window: %s: %ld reads on rank 0, %.1f us each (%.0f us in all)", how,
                observer.reads(), observer.read_us() / static_cast<double>(observer.reads()), observer.read_us());
  return line;
}

}  // namespace commsweep
