// A point in time by which a phase (communicator set-up, one collective) must finish.
#pragma once

#include <chrono>

namespace commsweep {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  static Deadline after(double seconds) {
    return Deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(seconds)),
                    seconds);
  }
  bool passed() const { return Clock::now() >= at_; }
  double budget_s() const { return budget_s_; }
  Clock::time_point at() const { return at_; }

 private:
  Deadline(Clock::time_point at, double budget) : at_(at), budget_s_(budget) {}
  Clock::time_point at_;
  double budget_s_;
};

}  // namespace commsweep
