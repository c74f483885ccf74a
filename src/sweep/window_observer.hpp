// The seam where the GPU's state is read around a measured window (report/gpu_window.hpp): the
// sweep asks for a sample at the window's two ends, before the barrier that starts the clock and
// after the timed pass returns, and never inside. The sweep knows no NVML: the run layer passes
// an observer that reads it (run/gpu_window_observer.hpp), or a recording's replay in tests.
#pragma once

#include <optional>
#include <vector>

#include "report/gpu_window.hpp"
#include "runtime/world.hpp"

namespace commsweep {

enum class WindowEnd { Start, End };

class WindowObserver {
 public:
  virtual ~WindowObserver() = default;
  // This rank's GPU now, at END of a window (an observer may read less at its start: only what
  // the window's deltas need); empty where no GPU is read (then no window is kept for this rank).
  virtual std::optional<report::GpuSample> sample(WindowEnd end) = 0;
};

// Every rank's window of START and END (its two ends; none where either is empty), on rank 0
// with each window's rank; empty elsewhere. Collective: one gather, after the window.
std::vector<report::GpuWindow> gather_windows(World& world, const std::optional<report::GpuSample>& start,
                                              const std::optional<report::GpuSample>& end, const Phase& phase);

}  // namespace commsweep
