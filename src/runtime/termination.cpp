#include "runtime/termination.hpp"

#include <csignal>

namespace commsweep {
namespace {

// A signal handler may only touch lock-free atomics of static storage: this is the one
// process-wide flag, set by the handler and read by the sweeps.
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_termination(int signal) { g_signal = signal; }

struct sigaction g_old_term;
struct sigaction g_old_int;

}  // namespace

TerminationGuard::TerminationGuard() {
  struct sigaction action {};
  action.sa_handler = on_termination;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, &g_old_term);
  sigaction(SIGINT, &action, &g_old_int);
}

TerminationGuard::~TerminationGuard() {
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGINT, &g_old_int, nullptr);
}

bool termination_requested() { return g_signal != 0; }

const char* termination_signal_name() {
  switch (g_signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "a signal";
  }
}

}  // namespace commsweep
