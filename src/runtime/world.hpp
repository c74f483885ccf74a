// The MPI world: who am I, where, and with whom. Every control-plane exchange here waits with
// a deadline, and a phase that misses it is attributed: rank 0 names the ranks that never
// arrived and the ones that were waiting.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/deadline.hpp"

namespace commsweep {

// MPI_Init_thread / MPI_Finalize. Asks for MPI_THREAD_MULTIPLE so that the watchdog thread
// may call MPI_Abort while the main thread is inside MPI.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int thread_level() const { return thread_level_; }

 private:
  int thread_level_ = MPI_THREAD_SINGLE;
};

// A labelled phase of work with its deadline ("all_reduce 1048576 B out-of-place").
struct Phase {
  std::string label;
  Deadline deadline;
};

// The name of a node: the host, or "host/HOSTID" where NCCL_HOSTID sets one.
std::string node_name(const std::string& host, const char* host_id);

class World {
 public:
  World();  // needs an initialised MpiSession
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank and rank count on this machine (shared memory): what picks the GPU and the binding.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  // Nodes as NCCL sees them: machines, or, where NCCL_HOSTID is set, the groups of ranks that
  // share its value (so one machine can emulate several nodes, as NCCL itself allows).
  int node_count() const { return node_count_; }
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }
  int node_of(int rank) const { return node_of_rank_[rank]; }
  // "host", or "host/HOSTID" under the override: the name printed for this rank's node.
  const std::string& host() const { return host_; }
  const std::vector<std::string>& hosts_by_rank() const { return hosts_by_rank_; }
  // Distinct hosts in rank order, with their rank counts.
  std::vector<std::pair<std::string, int>> ranks_per_host() const;
  // The data-plane communicator (a dup of MPI_COMM_WORLD, errors returned).
  MPI_Comm comm() const { return comm_; }

  // Waits for a request, polling; on a missed deadline runs the stall protocol (throws).
  void wait(MPI_Request* request, const Phase& phase);
  void wait_all(std::vector<MPI_Request>& requests, const Phase& phase);
  // Called by any rank whose phase missed its deadline. Rank 0 collects the other ranks'
  // reports for a grace period, then prints who did not arrive and ends the job (exit code 4);
  // other ranks report, give rank 0 time to end the job, then end it themselves. A verdict
  // ends the job where it is reached, without unwinding: on a GPU the unwinding frees device
  // buffers, and cudaFree waits for the collective that the missing rank never joins.
  [[noreturn]] void stall(const Phase& phase);
  // True once this rank's main thread has entered stall(): it reached a wait for its peers.
  // The watchdog reads it to tell a rank that waited from one that never got to its wait.
  bool stalled() const { return stalled_.load(); }

  std::uint64_t sum(std::uint64_t value, const Phase& phase);
  std::vector<double> gather(double value, const Phase& phase);  // full on rank 0 only
  std::vector<std::string> gather(const std::string& value, const Phase& phase);
  // Every rank's VALUES (any length each), on rank 0 one list per rank; empty elsewhere.
  std::vector<std::vector<double>> gather(const std::vector<double>& values, const Phase& phase);
  void broadcast(void* data, int bytes, int root, const Phase& phase);
  void barrier(const Phase& phase);

  // What to do before MPI_Abort when the job is ended (e.g. ncclCommAbort).
  void set_abort_hook(std::function<void()> hook);
  // What rank 0 says before it ends the job early: the results measured so far, written as
  // an incomplete file (run/results_keeper). CAUSE is "timeout", "error" or "out of memory";
  // MESSAGE says what happened and where. Said at most once.
  using LastWords = std::function<void(const std::string& cause, const std::string& message)>;
  void set_last_words(LastWords words);
  // Rank 0: says the last words now, if any are set (a run that stops cleanly on an error every
  // rank agreed on, e.g. out of memory); for at most kLastWordsLimitS.
  void say_last_words(const std::string& cause, const std::string& message);
  // Who else can tell of a hang (NCCL's RAS service, run/hang_account.hpp): asked once, when a
  // hang verdict is reached (end_job_on_timeout, the watchdog's overrun), before the verdict is
  // printed and the job ended, for at most kHangWitnessLimitS; its lines (the first a summary)
  // are added to the verdict. The ranks that wait for rank 0's verdict, and the watchdogs, wait
  // that much longer.
  using HangWitness = std::function<std::vector<std::string>()>;
  void set_hang_witness(HangWitness witness);
  // The witness's lines, asked once: none when no witness is set, or on a later call (the main
  // thread and the watchdog may both reach a verdict); one line saying so when the witness does
  // not answer within the limit.
  std::vector<std::string> witness_hang();
  // Rank 0 says its last words (when CAUSE is given), the abort hook runs, for at most
  // kAbortHookLimitS (a stuck transport must not keep the job alive), then MPI_Abort.
  [[noreturn]] void abort(int code, const std::string& cause = {}, const std::string& message = {});
  // Prints "commsweep: rank R (host H): timeout: MESSAGE" and ends the job with exit code 4.
  [[noreturn]] void end_job_on_timeout(const std::string& message);
  // Ends the job for an error found on this rank (a failed call, an asynchronous error), where
  // it stands: on a GPU, unwinding would free device buffers, and cudaFree waits for kernels
  // that peers may never complete. Prints LINE. Rank 0 ends the job (its last words keep what
  // was measured); another rank reports to rank 0, whose watchdog ends the job within a tick
  // (poll_failure_reports), and ends it itself if rank 0 has not within kFailGraceS.
  [[noreturn]] void fail(const std::string& line, const std::string& message, int code);
  // Rank 0 (the watchdog's thread, every tick): a failure reported by another rank ends the job
  // here, with rank 0's last words. Needs MPI_THREAD_MULTIPLE; a no-op without it.
  void poll_failure_reports();

  static double grace_seconds(double budget);
  static constexpr double kAbortHookLimitS = 5;
  static constexpr double kLastWordsLimitS = 10;
  static constexpr double kFailGraceS = 5;
  static constexpr double kHangWitnessLimitS = 4;

 private:
  void group_nodes();
  // A gatherv's counts on rank 0: each rank's length, its offset, their total.
  struct Parts {
    std::vector<int> lengths;
    std::vector<int> offsets;
    int total = 0;
  };
  Parts gather_lengths(int length, const Phase& phase);

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm control_ = MPI_COMM_NULL;  // stall reports travel here, apart from the data plane
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  int node_count_ = 1;
  int node_rank_ = 0;
  int node_size_ = 1;
  std::vector<int> node_of_rank_;
  std::string host_;
  std::vector<std::string> hosts_by_rank_;
  std::mutex hooks_mutex_;  // the hooks are set by the main thread, run by either thread
  std::function<void()> abort_hook_;
  LastWords last_words_;
  HangWitness hang_witness_;
  bool threads_multiple_ = false;  // MPI_THREAD_MULTIPLE: the watchdog may call MPI
  std::atomic<bool> stalled_{false};
  std::atomic<bool> aborting_{false};
  std::atomic<bool> failing_{false};
};

}  // namespace commsweep
