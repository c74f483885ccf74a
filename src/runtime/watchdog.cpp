#include "runtime/watchdog.hpp"

#include <cstdio>
#include <sstream>

#include "core/error.hpp"

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
  end_job("watchdog: " + problem + (phase_ ? " during " + phase_->label : ""), exit_code::kRuntime);
}

void Watchdog::end_job(const std::string& what, int code) {
  world_.fail("commsweep: rank " + std::to_string(world_.rank()) + " (" + world_.host() + "): " + what +
                  "; ending the job",
              what, code);
}

// A rank whose main thread waited for its peers (World::stall) was left behind by rank 0,
// which should have ended the job by now; one that never got to a wait is the late rank
// itself: it names itself, as rank 0 could not.
[[noreturn]] void Watchdog::end_overrun(double past_s) {
  const Phase& phase = *phase_;
  const int rank = world_.rank();
  std::ostringstream what;
  what.precision(0);
  what << std::fixed;
  if (world_.stalled()) {
    what << "watchdog: '" << phase.label << "' still running " << past_s << " s past its "
         << phase.deadline.budget_s() << " s deadline (-T) and rank 0 did not end the job";
  } else {
    what << "watchdog: rank " << rank << " did not arrive: it was still in '" << phase.label << "' "
         << past_s << " s past its " << phase.deadline.budget_s()
         << " s deadline (-T), never waiting for its peers (stuck in a call or in its own work)";
  }
  // NCCL's own account, where a witness is set (World::witness_hang): its first line joins the
  // verdict, the rest follow it.
  const std::vector<std::string> witness = world_.witness_hang();
  if (!witness.empty()) what << "; " << witness.front();
  for (std::size_t i = 1; i < witness.size(); ++i)
    std::fprintf(stderr, "commsweep: rank %d: %s\n", rank, witness[i].c_str());
  end_job(what.str(), exit_code::kTimeout);
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
    world_.poll_failure_reports();
    check_probe();
    if (!phase_) continue;
    // Past the polling waits' own attribution (one grace for rank 0's collection and its
    // witness, two for the others' wait on rank 0) and then some.
    const double grace = World::grace_seconds(phase_->deadline.budget_s());
    const double past = 4 * grace + World::kHangWitnessLimitS;
    const auto limit = phase_->deadline.at() + std::chrono::duration_cast<Deadline::Clock::duration>(
                                                   std::chrono::duration<double>(past));
    if (Deadline::Clock::now() < limit) continue;
    end_overrun(past);
  }
}

}  // namespace commsweep
