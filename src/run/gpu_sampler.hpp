// The GPU's state read on a thread of its own, once a period, while the measuring thread goes on
// launching: the windows then take samples the thread read (run/gpu_window_observer.hpp) and NVML
// is never called between a window's end and the next one's start. Called there, on the lent
// 2 x H200 VM (6-9 ms a window end), the reads left the GPU idle between the rows and the default
// table's 8 B - 1 MiB rows 5-25% slower than nccl-tests (docs/gpu-state.md#cost).
//
// The reads keep one schedule on every rank of a host: slot K is read at K x PERIOD on the host's
// steady clock (CLOCK_MONOTONIC, one clock for every process of a host), and a window takes the
// samples of slots chosen from the slots of its two ends alone (window_slots). The ranks of a
// host, whose windows start and end together, so take samples read at the same moments, and the
// drift rules can compare their GPUs (report/gpu_findings.hpp). Each rank sampling on its own
// phase, a healthy H200's power over "the same" window lay up to 47% above the two GPUs' mean; on
// one schedule, up to 13% (docs/gpu-state.md#drift). A read that comes late makes its windows
// longer or shorter than the node's others, and the drift rules leave those out.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "health/nvml_api.hpp"
#include "report/gpu_window.hpp"

namespace commsweep {

// The slot a time (us on the steady clock) falls in: slot K spans [K x PERIOD, (K+1) x PERIOD).
long slot_at(double steady_us, std::chrono::milliseconds period);

// The slots whose samples span a window that started in slot START and ended in slot END: the
// last slot read whole before each end (START - 1, END - 1), or, for a window within one slot,
// the two slots before it (START - 2, START - 1). Each is read a period before the moment it is
// taken, so its read has ended on every rank (a read takes 6-9 ms on the lent H200s).
struct SlotSpan {
  long start = 0, end = 0;
};
SlotSpan window_slots(long start_slot, long end_slot);

// A sample and the slot it was read for.
struct SlotSample {
  long slot = 0;
  report::GpuSample sample;
};

// A window's start as the sampler keeps it: its slot and the two samples it may take.
struct SamplerMark {
  long slot = 0;
  SlotSample two_before, one_before;  // of slots slot - 2 and slot - 1, or the last read before
};

class GpuSampler {
 public:
  // Reads GPU of NVML twice here (kept as the two slots before this one's, so that the first
  // window spans an interval of NVML's own), then at each slot's start on its thread until
  // destroyed. NVML must outlive the sampler, and only the sampler calls it meanwhile.
  GpuSampler(health::NvmlApi& nvml, unsigned gpu, std::chrono::milliseconds period);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // At a window's start: what it keeps of the samples read so far.
  SamplerMark mark() const;
  // At its end: the samples of window_slots(MARK's slot, now's slot), start then end.
  std::pair<SlotSample, SlotSample> window(const SamplerMark& mark) const;

  // What the thread's reads cost so far: how many, and their time (us), on the thread's clock.
  long reads() const;
  double read_us() const;
  std::chrono::milliseconds period() const { return period_; }

 private:
  void read_one(long slot);
  void loop();
  // The sample of SLOT; where it was not read (the thread was late, or the run had just begun),
  // the last one read before it, else the first kept. Under mutex_.
  const SlotSample& pick(long slot) const;
  // The last kept sample of a slot before SAMPLE's; SAMPLE itself where none is. Under mutex_.
  const SlotSample& before(const SlotSample& sample) const;
  long now_slot() const;

  health::NvmlApi& nvml_;
  const unsigned gpu_;
  const std::chrono::milliseconds period_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::deque<SlotSample> kept_;  // the last few slots read, oldest first
  long reads_ = 0;
  double read_us_ = 0;
  std::thread thread_;  // last: started once every member above is
};

}  // namespace commsweep
