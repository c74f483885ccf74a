// SIGTERM (Kubernetes at activeDeadlineSeconds, mpirun forwarding it) and SIGINT end a sweep
// at its next step: the ranks agree on stopping at the arrival barrier, the rows measured so
// far are printed and written, marked incomplete, and the job exits with kInterrupted.
#pragma once

namespace commsweep {

// Installs the handlers for the lifetime of the guard (and restores the old ones).
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

// Thrown by a sweep when the ranks agree to stop; carries nothing, the sweep keeps its rows.
struct Interrupted {};

}  // namespace commsweep
