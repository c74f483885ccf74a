// The GPU's state read on a thread of its own, every period, while the measuring thread goes on
// launching: the windows then take the samples the thread last read (run/gpu_window_observer.hpp)
// and NVML is never called between a window's end and the next one's start. Called there, on
// the lent 2 x H200 VM (6-9 ms a window end), the reads left the GPU idle between the rows and
// the default table's 8 B - 1 MiB rows 5-25% slower than nccl-tests (docs/gpu-state.md#cost).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "health/nvml_api.hpp"
#include "report/gpu_window.hpp"

namespace commsweep {

class GpuSampler {
 public:
  // Reads GPU of NVML twice here (so that the first window has an interval before it), then
  // every PERIOD on its thread until destroyed. NVML must outlive the sampler, and only the
  // sampler calls it meanwhile.
  GpuSampler(health::NvmlApi& nvml, unsigned gpu, std::chrono::milliseconds period);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // The last sample read, and the one before it.
  report::GpuSample latest() const;
  report::GpuSample before_latest() const;
  // What the thread's reads cost so far: how many, and their time (us), on the thread's clock.
  long reads() const;
  double read_us() const;
  std::chrono::milliseconds period() const { return period_; }

 private:
  void read_one();
  void loop();

  health::NvmlApi& nvml_;
  const unsigned gpu_;
  const std::chrono::milliseconds period_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  report::GpuSample latest_, before_latest_;
  long reads_ = 0;
  double read_us_ = 0;
  std::thread thread_;  // last: started once every member above is
};

}  // namespace commsweep
