// The seam where the GPU's state is read around a measured window (report/gpu_window.hpp): the
// sweep asks for a sample at the window's two ends, before the barrier that starts the clock and
// after the timed pass returns, and never inside. The sweep knows no NVML: the run layer passes
// an observer that reads it (run/gpu_window_observer.hpp), or a recording's replay in tests.
#pragma once

#include <optional>

#include "report/gpu_window.hpp"

namespace commsweep {

enum class WindowEnd { Start, End };

class WindowObserver {
 public:
  virtual ~WindowObserver() = default;
  // This rank's GPU now, at END of a window (an observer may read less at its start: only what
  // the window's deltas need); empty where no GPU is read (then no window is kept for this rank).
  virtual std::optional<report::GpuSample> sample(WindowEnd end) = 0;
};

}  // namespace commsweep
