#include "runtime/watchdog.hpp"

#include <cstdio>

#include "runtime/error.hpp"

namespace commsweep {

Watchdog::Watchdog(World& world) : world_(world), thread_([this] { run(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Watchdog::Guard Watchdog::watch(const Phase& phase) {
  std::lock_guard<std::mutex> lock(mutex_);
  phase_ = phase;
  return Guard(*this);
}

Watchdog::HealthCheck Watchdog::check_health(std::function<std::string()> probe) {
  set_probe(std::move(probe));
  return HealthCheck(this);
}

void Watchdog::set_probe(std::function<std::string()> probe) {
  std::lock_guard<std::mutex> lock(mutex_);
  probe_ = std::move(probe);
}

void Watchdog::check_probe() {
  if (!probe_) return;
  const std::string problem = probe_();
  if (problem.empty()) return;
  std::fprintf(stderr, "commsweep: rank %d (%s): watchdog: %s%s%s; ending the job\n", world_.rank(),
               world_.host().c_str(), problem.c_str(), phase_ ? " during " : "",
               phase_ ? phase_->label.c_str() : "");
  std::fflush(stderr);
  world_.abort(exit_code::kRuntime);
}

// A rank whose main thread waited for its peers (World::stall) was left behind by rank 0,
// which should have ended the job by now; one that never got to a wait is the late rank
// itself: it names itself, as rank 0 could not.
void Watchdog::report_overrun(double past_s) {
  const Phase& phase = *phase_;
  const int rank = world_.rank();
  const char* host = world_.host().c_str();
  if (world_.stalled()) {
    std::fprintf(stderr,
                 "commsweep: rank %d (%s): watchdog: '%s' still running %.0f s past its %.0f s "
                 "deadline (-T) and rank 0 did not end the job; ending it\n",
                 rank, host, phase.label.c_str(), past_s, phase.deadline.budget_s());
  } else {
    std::fprintf(stderr,
                 "commsweep: rank %d (%s): watchdog: rank %d did not arrive: it was still in "
                 "'%s' %.0f s past its %.0f s deadline (-T), never waiting for its peers (stuck "
                 "in a call or in its own work); ending the job\n",
                 rank, host, rank, phase.label.c_str(), past_s, phase.deadline.budget_s());
  }
  std::fflush(stderr);
}

void Watchdog::leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  phase_.reset();
}

void Watchdog::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(200));
    if (stop_) continue;
    check_probe();
    if (!phase_) continue;
    // Past the polling waits' own attribution (one grace for rank 0's collection, two for
    // the others' wait on rank 0) and then some.
    const double grace = World::grace_seconds(phase_->deadline.budget_s());
    const auto limit = phase_->deadline.at() + std::chrono::duration_cast<Deadline::Clock::duration>(
                                                   std::chrono::duration<double>(4 * grace));
    if (Deadline::Clock::now() < limit) continue;
    report_overrun(4 * grace);
    world_.abort(exit_code::kTimeout);
  }
}

}  // namespace commsweep
