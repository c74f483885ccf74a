// The seam where the GPU's state is read around a measured window (report/gpu_window.hpp): the
// sweep says when a window starts, before the barrier that starts the clock, and when it ends,
// after the timed pass returns, and never calls the observer inside. The sweep knows no NVML: the
// run layer passes an observer that reads it (run/gpu_window_observer.hpp), or a recording's
// replay in tests.
#pragma once

#include <optional>
#include <vector>

#include "report/gpu_window.hpp"
#include "runtime/world.hpp"

namespace commsweep {

enum class WindowEnd { Start, End };

// The two samples a window spans: read at its ends, or sampled around them.
struct WindowSamples {
  report::GpuSample start, end;
};

class WindowObserver {
 public:
  virtual ~WindowObserver() = default;
  // A window starts now. One window at a time: each start is followed by its end.
  virtual void window_starts() = 0;
  // The window that started last ended now: the samples of this rank's GPU that span it; empty
  // where no GPU is read (then no window is kept for this rank).
  virtual std::optional<WindowSamples> window_ends() = 0;
};

// Every rank's window from its SAMPLES (none where empty), on rank 0 with each window's rank;
// empty elsewhere. Collective: one gather, after the window.
std::vector<report::GpuWindow> gather_windows(World& world, const std::optional<WindowSamples>& samples,
                                              const Phase& phase);

}  // namespace commsweep
