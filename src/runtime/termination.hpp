// SIGTERM (Kubernetes at activeDeadlineSeconds, mpirun forwarding it) and SIGINT end a sweep
// at its next step: the ranks agree on stopping at the arrival barrier, the rows measured so
// far are printed and written, marked incomplete, and the job exits with kInterrupted.
#pragma once

#include <functional>
#include <string>

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

// What to do the moment the first SIGTERM or SIGINT arrives, on the signal's own thread, before
// the sweep reaches its next step: Open MPI's mpirun forwards Ctrl-C to the ranks as SIGTERM
// and kills them odls_base_sigkill_timeout (1 s) later, so a rank inside a long size or the
// set-up would be killed before it could say anything. Rank 0's keeper writes what was measured
// (run/results_keeper.hpp). An empty function clears it. The action must be thread-safe.
void on_termination(std::function<void()> action);

// The signal in the user's words: "interrupted (Ctrl-C / SIGINT)", "interrupted (SIGTERM:
// Ctrl-C to mpirun, forwarded as SIGTERM, or kill / Kubernetes ending the pod)".
std::string termination_description();

// commsweep blocks SIGTERM and SIGINT from the moment it is loaded (cli/main.cpp), so that a
// signal that comes while the libraries load waits for the guard; a command that runs without
// the guard (the offline ones) lets them in, with their default action.
void block_termination_signals();
void let_termination_signals_in();

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
