#include "runtime/termination.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <thread>
#include <utility>

namespace commsweep {
namespace {

// SIGTERM and SIGINT are blocked in every thread (the mask is set before MPI, CUDA and NCCL
// start theirs, which inherit it) and taken by one thread with sigwait, so the flag does not
// depend on whatever disposition a library installs for SIGTERM.
//
// Output must not keep a rank from stopping: Open MPI 4.1's mpirun, once signalled, forwards
// SIGTERM and then sleeps for odls_base_sigkill_timeout without reading the ranks' output. A
// rank 0 printing rows then blocks in write() on a full pipe, the other ranks wait for it at
// the next arrival barrier, and the job dies by SIGKILL with nothing written (seen in CI).
// So, on the signal, stdout and stderr are made non-blocking where they are pipes, sockets or
// terminals (mpirun gives each rank a pseudo-terminal): a write that cannot proceed is dropped,
// never waited for; the flags are restored when the guard ends. A write already blocked in
// the main thread is interrupted with kWakeSignal, whose handler does nothing and is installed
// without SA_RESTART. The JSON results are a file and are written in full.
// The flag is process-wide by nature: the signal is.
std::atomic<int> g_signal{0};
std::atomic<bool> g_stopping{false};

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// Default disposition "ignore": harmless should a library reset the handler. Open MPI
// forwards SIGUSR1/SIGUSR2 to ranks, so those are left alone.
constexpr int kWakeSignal = SIGURG;

void wake_handler(int) {}

struct Waiter {
  sigset_t old_mask{};
  struct sigaction old_wake{};
  int old_output_flags[3] = {-1, -1, -1};  // by fd; -1: left alone
  pthread_t main_thread{};
  std::thread thread;
  std::mutex action_mutex;
  std::function<void()> action;  // on_termination's
};

Waiter& waiter();

void stop_blocking_on_output() {
  for (const int fd : {1, 2}) {
    struct stat st{};
    if (fstat(fd, &st) != 0) continue;
    if (!(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode))) continue;
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_NONBLOCK) != 0) continue;
    if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0) waiter().old_output_flags[fd] = flags;
  }
}

void restore_output() {
  for (const int fd : {1, 2}) {
    if (waiter().old_output_flags[fd] >= 0) fcntl(fd, F_SETFL, waiter().old_output_flags[fd]);
  }
}

Waiter& waiter() {
  static Waiter w;
  return w;
}


}  // namespace

void block_termination_signals() {
  const sigset_t set = termination_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void let_termination_signals_in() {
  const sigset_t set = termination_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

TerminationGuard::TerminationGuard() {
  const sigset_t set = termination_signals();
  pthread_sigmask(SIG_BLOCK, &set, &waiter().old_mask);
  struct sigaction wake{};
  wake.sa_handler = wake_handler;
  sigemptyset(&wake.sa_mask);
  wake.sa_flags = 0;  // no SA_RESTART: a blocked write() returns
  sigaction(kWakeSignal, &wake, &waiter().old_wake);
  waiter().main_thread = pthread_self();
  waiter().thread = std::thread([set] {
    while (true) {
      int signal = 0;
      if (sigwait(&set, &signal) != 0) continue;
      if (g_stopping.load()) return;
      const bool first = g_signal.exchange(signal) == 0;
      if (first) {
        stop_blocking_on_output();
        std::function<void()> action;
        {
          const std::lock_guard<std::mutex> lock(waiter().action_mutex);
          action = waiter().action;
        }
        if (action) action();  // before the main thread is woken: it may end the job next
        pthread_kill(waiter().main_thread, kWakeSignal);
      }
    }
  });
}

TerminationGuard::~TerminationGuard() {
  g_stopping.store(true);
  pthread_kill(waiter().thread.native_handle(), SIGTERM);  // wakes the sigwait
  waiter().thread.join();
  pthread_sigmask(SIG_SETMASK, &waiter().old_mask, nullptr);
  sigaction(kWakeSignal, &waiter().old_wake, nullptr);
  restore_output();
}

void on_termination(std::function<void()> action) {
  const std::lock_guard<std::mutex> lock(waiter().action_mutex);
  waiter().action = std::move(action);
}

std::string termination_description() {
  // Under mpirun (Open MPI names every rank's world size) a SIGTERM is most often Ctrl-C.
  const bool mpirun = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  switch (g_signal.load()) {
    case SIGINT: return "interrupted (Ctrl-C / SIGINT)";
    case SIGTERM:
      return mpirun ? "interrupted (SIGTERM: Ctrl-C or SIGINT to mpirun, forwarded as SIGTERM; or kill, "
                      "or Kubernetes ending the pod)"
                    : "interrupted (SIGTERM: kill, or Kubernetes ending the pod)";
    default: return "interrupted";
  }
}

bool termination_requested() { return g_signal.load() != 0; }

const char* termination_signal_name() {
  switch (g_signal.load()) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "a signal";
  }
}

void stay_until_the_end() {
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace commsweep
