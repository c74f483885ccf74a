#include "sweep/window_observer.hpp"

namespace commsweep {

std::vector<report::GpuWindow> gather_windows(World& world, const std::optional<WindowSamples>& samples,
                                              const Phase& phase) {
  std::vector<double> mine;
  if (samples) mine = report::window_numbers(report::window_between(samples->start, samples->end));
  const auto all = world.gather(mine, phase);
  std::vector<report::GpuWindow> windows;
  for (std::size_t r = 0; world.rank() == 0 && r < all.size(); ++r)
    if (!all[r].empty()) windows.push_back(report::window_from_numbers(all[r], static_cast<int>(r)));
  return windows;
}

}  // namespace commsweep
