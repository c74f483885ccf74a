#include "runtime/world.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <sstream>
#include <thread>

#include "core/strings.hpp"
#include "core/error.hpp"
#include "runtime/mpi_check.hpp"
#include "runtime/termination.hpp"

namespace commsweep {
namespace {

constexpr int kStallTag = 7001;
constexpr int kHostNameBytes = 256;  // each rank's node name in the host gather
constexpr int kFailTag = 7002;  // a rank's failure report to rank 0: "CODE\nMESSAGE"
constexpr auto kPollInterval = std::chrono::microseconds(50);
// Busy-poll (yielding) this long before sleeping between polls, as MPI_Wait itself spins:
// short collectives are timed without a sleep's latency, long hangs cost no CPU.
constexpr auto kSpinFor = std::chrono::milliseconds(10);

// Polls until `done` says so; a missed deadline runs the stall protocol.
template <typename Done>
void poll_until(World& world, const Phase& phase, Done done) {
  const auto spin_until = Deadline::Clock::now() + kSpinFor;
  while (!done()) {
    if (phase.deadline.passed()) world.stall(phase);
    if (Deadline::Clock::now() < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kPollInterval);
    }
  }
}

// "; ranks that did not arrive: 2 (host); ranks waiting: 0 (host), 1 (host)", or that
// every rank arrived.
std::string attendance(const std::vector<bool>& waiting, const std::vector<std::string>& hosts) {
  std::ostringstream missing;
  std::ostringstream present;
  int n_missing = 0;
  for (std::size_t r = 0; r < waiting.size(); ++r) {
    auto& out = waiting[r] ? present : missing;
    if (out.tellp() > 0) out << ", ";
    out << r << " (" << hosts[r] << ")";
    if (!waiting[r]) ++n_missing;
  }
  if (n_missing == 0) {
    return "; every rank arrived and waited: the operation itself hung (fabric, driver or NCCL)";
  }
  return "; ranks that did not arrive: " + missing.str() + "; ranks waiting: " + present.str();
}

// Runs `work` on a thread of its own and waits for it at most `seconds`; false if it is still
// running then (the thread is left behind: the caller is about to end the process).
bool finishes_within(std::function<void()> work, double seconds) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([work = std::move(work), done] {
    work();
    done->set_value();
  }).detach();
  return finished.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::ready;
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &thread_level_);
  }
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

World::World() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  threads_multiple_ = provided == MPI_THREAD_MULTIPLE;
  CS_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
  CS_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &control_));
  CS_MPI(MPI_Comm_rank(comm_, &rank_));
  CS_MPI(MPI_Comm_size(comm_, &size_));
  MPI_Comm local = MPI_COMM_NULL;
  CS_MPI(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
  CS_MPI(MPI_Comm_rank(local, &local_rank_));
  CS_MPI(MPI_Comm_size(local, &local_size_));
  MPI_Comm_free(&local);

  host_ = node_name(system_host_name(), std::getenv("NCCL_HOSTID"));
  std::vector<char> all(static_cast<std::size_t>(kHostNameBytes) * size_);
  std::array<char, kHostNameBytes> mine{};
  std::strncpy(mine.data(), host_.c_str(), mine.size() - 1);
  CS_MPI(MPI_Allgather(mine.data(), kHostNameBytes, MPI_CHAR, all.data(), kHostNameBytes,
                       MPI_CHAR, comm_));
  for (int r = 0; r < size_; ++r) hosts_by_rank_.emplace_back(&all[r * kHostNameBytes]);
  group_nodes();
}

// Ranks with the same node name form a node, numbered in order of their first rank.
void World::group_nodes() {
  std::vector<std::string> names;
  for (const auto& h : hosts_by_rank_) {
    auto it = std::find(names.begin(), names.end(), h);
    node_of_rank_.push_back(static_cast<int>(it - names.begin()));
    if (it == names.end()) names.push_back(h);
  }
  node_count_ = static_cast<int>(names.size());
  node_size_ = 0;
  for (int r = 0; r < size_; ++r) {
    if (node_of_rank_[r] != node_of_rank_[rank_]) continue;
    if (r == rank_) node_rank_ = node_size_;
    ++node_size_;
  }
}

std::string node_name(const std::string& host, const char* host_id) {
  if (host_id == nullptr || *host_id == '\0') return host;
  return host + "/" + host_id;
}

World::~World() {
  if (control_ != MPI_COMM_NULL) MPI_Comm_free(&control_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<std::pair<std::string, int>> World::ranks_per_host() const {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& h : hosts_by_rank_) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == h; });
    if (it == out.end()) {
      out.emplace_back(h, 1);
    } else {
      ++it->second;
    }
  }
  return out;
}

double World::grace_seconds(double budget) { return std::clamp(budget / 10.0, 2.0, 10.0); }

void World::wait(MPI_Request* request, const Phase& phase) {
  poll_until(*this, phase, [&] {
    int done = 0;
    CS_MPI(MPI_Test(request, &done, MPI_STATUS_IGNORE));
    return done != 0;
  });
}

void World::wait_all(std::vector<MPI_Request>& requests, const Phase& phase) {
  poll_until(*this, phase, [&] {
    int done = 0;
    CS_MPI(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                       MPI_STATUSES_IGNORE));
    return done != 0;
  });
}

void World::stall(const Phase& phase) {
  stalled_.store(true);
  const double grace = grace_seconds(phase.deadline.budget_s());
  const auto until = Deadline::after(grace);
  std::ostringstream msg;
  msg << phase.label << " did not finish within " << phase.deadline.budget_s() << " s (-T)";
  if (rank_ != 0) {
    MPI_Request req;
    const int my_rank = rank_;
    MPI_Isend(&my_rank, 1, MPI_INT, 0, kStallTag, control_, &req);
    // Rank 0 names everyone and ends the job; if it does not, it is stuck itself.
    const auto give_up = Deadline::after(2 * grace + kHangWitnessLimitS);  // rank 0 asks its witness first
    while (!give_up.passed()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    msg << "; rank 0 (" << hosts_by_rank_[0] << ") did not answer: it may be the rank that hangs";
    end_job_on_timeout(msg.str());
  }
  std::vector<bool> waiting(size_, false);
  waiting[0] = true;
  while (!until.passed()) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kStallTag, control_, &flag, &status);
    if (flag) {
      int who = -1;
      MPI_Recv(&who, 1, MPI_INT, status.MPI_SOURCE, kStallTag, control_, MPI_STATUS_IGNORE);
      if (who >= 0 && who < size_) waiting[who] = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  msg << attendance(waiting, hosts_by_rank_);
  end_job_on_timeout(msg.str());
}

void World::end_job_on_timeout(const std::string& message) {
  // Asked before the verdict is printed and before the job ends: ncclCommAbort (the abort
  // hook) would take the communicators RAS reports on.
  const std::vector<std::string> witness = witness_hang();
  const std::string told = witness.empty() ? message : message + "; " + witness.front();
  std::fprintf(stderr, "commsweep: rank %d (host %s): %s: %s\n", rank_, host_.c_str(),
               std::string(name_of(ErrorKind::Timeout)).c_str(), told.c_str());
  for (std::size_t i = 1; i < witness.size(); ++i) std::fprintf(stderr, "commsweep: rank %d: %s\n", rank_, witness[i].c_str());
  std::fflush(stderr);
  abort(exit_code::kTimeout, std::string(name_of(ErrorKind::Timeout)),
        "rank " + std::to_string(rank_) + " (" + host_ + "): " + told);
}

void World::set_hang_witness(HangWitness witness) {
  const std::lock_guard<std::mutex> lock(hooks_mutex_);
  hang_witness_ = std::move(witness);
}

std::vector<std::string> World::witness_hang() {
  HangWitness witness;
  {
    const std::lock_guard<std::mutex> lock(hooks_mutex_);
    witness = std::move(hang_witness_);
    hang_witness_ = nullptr;
  }
  if (!witness) return {};
  // On a thread of its own, so that a witness stuck past its own deadline cannot hold the exit.
  auto answer = std::make_shared<std::promise<std::vector<std::string>>>();
  std::future<std::vector<std::string>> lines = answer->get_future();
  std::thread([witness = std::move(witness), answer] {
    try {
      answer->set_value(witness());
    } catch (const std::exception& e) {
      answer->set_value({std::string("the hang's witness failed: ") + e.what()});
    }
  }).detach();
  if (lines.wait_for(std::chrono::duration<double>(kHangWitnessLimitS)) != std::future_status::ready) {
    char text[96];
    std::snprintf(text, sizeof text, "the hang's witness (NCCL RAS) did not answer within %.0f s", kHangWitnessLimitS);
    return {text};
  }
  return lines.get();
}

namespace {
std::string cause_of(int code) {
  if (code == exit_code::kTimeout) return std::string(name_of(ErrorKind::Timeout));
  if (code == exit_code::kOutOfMemory) return std::string(name_of(ErrorKind::OutOfMemory));
  return "error";
}
}  // namespace

void World::fail(const std::string& line, const std::string& message, int code) {
  // The main thread and the watchdog may both find the failure (an asynchronous error): the
  // first reports it, the second waits for it to end the job.
  if (failing_.exchange(true)) {
    stay_until_the_end();
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  const std::string where = "rank " + std::to_string(rank_) + " (" + host_ + "): " + message;
  if (rank_ == 0) abort(code, cause_of(code), where);
  // Rank 0 keeps what was measured and ends the job; told over the control communicator.
  const std::string report = std::to_string(code) + "\n" + where;
  MPI_Request request;
  if (threads_multiple_ && MPI_Isend(report.data(), static_cast<int>(report.size()), MPI_CHAR, 0,
                                     kFailTag, control_, &request) == MPI_SUCCESS) {
    const auto give_up = Deadline::after(kFailGraceS);
    while (!give_up.passed()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::fprintf(stderr, "commsweep: rank %d (host %s): rank 0 did not end the job within %.0f s "
                         "of this rank's report; ending it\n", rank_, host_.c_str(), kFailGraceS);
    std::fflush(stderr);
  }
  abort(code);
}

void World::poll_failure_reports() {
  if (rank_ != 0 || !threads_multiple_ || aborting_.load()) return;
  int flag = 0;
  MPI_Status status;
  if (MPI_Iprobe(MPI_ANY_SOURCE, kFailTag, control_, &flag, &status) != MPI_SUCCESS || !flag) return;
  int bytes = 0;
  MPI_Get_count(&status, MPI_CHAR, &bytes);
  std::string report(static_cast<std::size_t>(std::max(bytes, 0)), '\0');
  MPI_Recv(report.data(), bytes, MPI_CHAR, status.MPI_SOURCE, kFailTag, control_, MPI_STATUS_IGNORE);
  const auto newline = report.find('\n');
  int code = exit_code::kRuntime;
  try {
    code = std::stoi(report.substr(0, newline));
  } catch (const std::exception&) {
  }
  const std::string message = newline == std::string::npos ? report : report.substr(newline + 1);
  std::fprintf(stderr, "commsweep: rank 0 (host %s): ending the job: %s\n", host_.c_str(),
               message.c_str());
  std::fflush(stderr);
  abort(code, cause_of(code), message);
}

std::uint64_t World::sum(std::uint64_t value, const Phase& phase) {
  std::uint64_t total = 0;
  MPI_Request req;
  CS_MPI(MPI_Iallreduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, comm_, &req));
  wait(&req, phase);
  return total;
}

std::vector<double> World::gather(double value, const Phase& phase) {
  std::vector<double> all(rank_ == 0 ? size_ : 0);
  MPI_Request req;
  CS_MPI(MPI_Igather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm_, &req));
  wait(&req, phase);
  return all;
}

// Every rank's LENGTH on rank 0, and where each rank's part starts in the gathered whole.
World::Parts World::gather_lengths(int length, const Phase& phase) {
  Parts parts;
  parts.lengths.resize(rank_ == 0 ? size_ : 0);
  MPI_Request req;
  CS_MPI(MPI_Igather(&length, 1, MPI_INT, parts.lengths.data(), 1, MPI_INT, 0, comm_, &req));
  wait(&req, phase);
  parts.offsets.resize(parts.lengths.size());
  for (std::size_t i = 0; i < parts.lengths.size(); ++i) {
    parts.offsets[i] = parts.total;
    parts.total += parts.lengths[i];
  }
  return parts;
}

std::vector<std::string> World::gather(const std::string& value, const Phase& phase) {
  const int length = static_cast<int>(value.size());
  const Parts parts = gather_lengths(length, phase);
  std::vector<char> all(std::max(parts.total, 1));
  MPI_Request req;
  CS_MPI(MPI_Igatherv(value.data(), length, MPI_CHAR, all.data(), parts.lengths.data(), parts.offsets.data(),
                      MPI_CHAR, 0, comm_, &req));
  wait(&req, phase);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < parts.lengths.size(); ++i) out.emplace_back(&all[parts.offsets[i]], parts.lengths[i]);
  return out;
}

std::vector<std::vector<double>> World::gather(const std::vector<double>& values, const Phase& phase) {
  const int length = static_cast<int>(values.size());
  const Parts parts = gather_lengths(length, phase);
  std::vector<double> all(static_cast<std::size_t>(std::max(parts.total, 1)));
  MPI_Request req;
  CS_MPI(MPI_Igatherv(values.data(), length, MPI_DOUBLE, all.data(), parts.lengths.data(), parts.offsets.data(),
                      MPI_DOUBLE, 0, comm_, &req));
  wait(&req, phase);
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < parts.lengths.size(); ++i) {
    out.emplace_back(all.begin() + parts.offsets[i], all.begin() + parts.offsets[i] + parts.lengths[i]);
  }
  return out;
}

void World::broadcast(void* data, int bytes, int root, const Phase& phase) {
  MPI_Request req;
  CS_MPI(MPI_Ibcast(data, bytes, MPI_BYTE, root, comm_, &req));
  wait(&req, phase);
}

void World::barrier(const Phase& phase) {
  MPI_Request req;
  CS_MPI(MPI_Ibarrier(comm_, &req));
  wait(&req, phase);
}

void World::set_abort_hook(std::function<void()> hook) {
  const std::lock_guard<std::mutex> lock(hooks_mutex_);
  abort_hook_ = std::move(hook);
}

void World::set_last_words(LastWords words) {
  const std::lock_guard<std::mutex> lock(hooks_mutex_);
  last_words_ = std::move(words);
}

void World::say_last_words(const std::string& cause, const std::string& message) {
  LastWords words;
  {
    const std::lock_guard<std::mutex> lock(hooks_mutex_);
    words = std::move(last_words_);
    last_words_ = nullptr;
  }
  if (!words || rank_ != 0) return;
  // A results file on a stuck file system must not keep the job alive either.
  const auto say = [words = std::move(words), cause, message, host = host_] {
    try {
      words(cause, message);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "commsweep: rank 0 (host %s): could not keep the results measured so "
                           "far: %s\n", host.c_str(), e.what());
    }
  };
  if (!finishes_within(say, kLastWordsLimitS)) {
    std::fprintf(stderr, "commsweep: rank 0 (host %s): writing the results measured so far did "
                         "not finish within %.0f s; ending the job without them\n",
                 host_.c_str(), kLastWordsLimitS);
    std::fflush(stderr);
  }
}

void World::abort(int code, const std::string& cause, const std::string& message) {
  // The main thread and the watchdog may both end the job: the first runs the hooks, the
  // second waits for it to finish the process.
  if (aborting_.exchange(true)) {
    stay_until_the_end();
  }
  if (!cause.empty()) say_last_words(cause, message);
  std::function<void()> hook;
  {
    const std::lock_guard<std::mutex> lock(hooks_mutex_);
    hook = std::move(abort_hook_);
    abort_hook_ = nullptr;
  }
  if (hook && !finishes_within(std::move(hook), kAbortHookLimitS)) {
    std::fprintf(stderr,
                 "commsweep: rank %d (host %s): the transport's abort (ncclCommAbort) did not "
                 "return within %.0f s; ending the job without it\n",
                 rank_, host_.c_str(), kAbortHookLimitS);
    std::fflush(stderr);
  }
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace commsweep
