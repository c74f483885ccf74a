// SIGTERM (Kubernetes at activeDeadlineSeconds, mpirun forwarding it) and SIGINT end a sweep
// at its next step: the ranks agree on stopping at the arrival barrier, the rows measured so
// far are printed and written, marked incomplete, and the job exits with kInterrupted.
#pragma once

namespace commsweep {

// For the lifetime of the guard, SIGTERM and SIGINT are taken by a thread of its own. Create
// it first in main, before any other thread exists (they inherit the signal mask).
class TerminationGuard {
 public:
  TerminationGuard();
  ~TerminationGuard();
  TerminationGuard(const TerminationGuard&) = delete;
  TerminationGuard& operator=(const TerminationGuard&) = delete;
};

// True once SIGTERM or SIGINT has arrived at this process.
bool termination_requested();
// The signal's name, for the message ("SIGTERM").
const char* termination_signal_name();

// The calling thread stays here, alive and silent, until the process is ended: the second of
// two threads that both end the job, or a rank a planted fault (--fault hang) leaves hanging.
[[noreturn]] void stay_until_the_end();

// Thrown by a sweep when the ranks agree to stop; carries nothing, the sweep keeps its rows.
struct Interrupted {};

}  // namespace commsweep
