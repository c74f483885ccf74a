#include "faults/slowed_backend.hpp"

#include <chrono>
#include <thread>

namespace commsweep::faults {

double SlowedBackend::run(const CollectiveArgs& args, const TimingOptions& timing, const Phase& phase) {
  if (!slow_with_(args.send_peer)) return inner_.run(args, timing, phase);
  using Clock = std::chrono::steady_clock;
  TimingOptions one = timing;
  one.iters = 1;
  one.iteration_us = nullptr;
  if (timing.iteration_us != nullptr) timing.iteration_us->clear();
  const auto start = Clock::now();
  for (int i = 0; i < timing.iters; ++i) {
    const auto t0 = Clock::now();
    one.slices.first = timing.slices.first + static_cast<std::size_t>(i);  // iteration i's slice
    inner_.run(args, one, phase);
    const auto extra = std::chrono::duration_cast<Clock::duration>((Clock::now() - t0) * (slowdown_ - 1));
    if (spin_) {
      for (const auto until = Clock::now() + extra; Clock::now() < until;) {
      }
    } else {
      std::this_thread::sleep_for(extra);
    }
    if (timing.iteration_us != nullptr) {
      timing.iteration_us->push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / timing.iters;
}

}  // namespace commsweep::faults
