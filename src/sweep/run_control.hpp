// How a run's engines (Sweep, ep::EpSweep, pairs::PairExchange) are watched and stopped: one
// RunControl per run, made before the backend's set-up (run/measuring_run.hpp) and handed to
// every engine of the run, so that the three share one mechanism:
//   watch(phase)   the watchdog (runtime/watchdog.hpp) guards the phase with its deadline: a
//                  phase that overruns it ends the job (exit code 4, a timeout);
//   arrive(phase)  an arrival point: every rank says whether SIGTERM / SIGINT has reached it
//                  (runtime/termination.hpp), and when any has, all stop there together by
//                  throwing Interrupted; the run stays interrupted() from then on (exit code 5,
//                  the rows measured so far kept);
//   until_stopped  runs a body of arrival points, ending quietly where the ranks agreed to stop.
#pragma once

#include <utility>

#include "runtime/termination.hpp"
#include "runtime/watchdog.hpp"
#include "runtime/world.hpp"

namespace commsweep {

class RunControl {
 public:
  explicit RunControl(World& world) : world_(world), watchdog_(world) {}
  RunControl(const RunControl&) = delete;
  RunControl& operator=(const RunControl&) = delete;

  World& world() { return world_; }
  // The set-up's own phases (the backend, the transport check) are watched through it too.
  Watchdog& watchdog() { return watchdog_; }

  // Marks PHASE as the main thread's until the guard is destroyed.
  [[nodiscard]] Watchdog::Guard watch(const Phase& phase) { return watchdog_.watch(phase); }

  // Collective (every rank, the same PHASE): throws Interrupted on every rank when any rank has
  // been asked to stop; after that, at once (the ranks agreed: no rank is left waiting).
  void arrive(const Phase& phase);
  // True once the ranks agreed to stop.
  bool interrupted() const { return interrupted_; }

  // Runs BODY; false when an arrival point in it stopped the run (the Interrupted is taken
  // here: what BODY measured before it stays where BODY put it).
  template <typename Body>
  bool until_stopped(Body&& body) {
    try {
      std::forward<Body>(body)();
      return true;
    } catch (const Interrupted&) {
      return false;
    }
  }

 private:
  World& world_;
  Watchdog watchdog_;
  bool interrupted_ = false;
};

}  // namespace commsweep
