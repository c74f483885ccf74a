// Typed errors. A failing CUDA, NCCL or MPI call becomes an Error naming the call and where
// it was made; the top level adds host, rank and device when it prints it.
#pragma once

#include <stdexcept>
#include <string>

namespace commsweep {

enum class ErrorKind { Usage, Cuda, Nccl, Mpi, Timeout, WrongResults, Runtime, OutOfMemory };

// Exit codes of the sweep commands (documented in docs/failures.md and --help).
namespace exit_code {
constexpr int kOk = 0;
constexpr int kWrongResults = 1;  // a sweep finished and found wrong elements
constexpr int kUsage = 2;         // bad flags or input
constexpr int kRuntime = 3;       // a CUDA, NCCL or MPI call failed
constexpr int kTimeout = 4;       // the watchdog ended a hang
constexpr int kInterrupted = 5;   // SIGTERM / SIGINT: the rows measured so far, marked incomplete
constexpr int kPreflightFailed = 6;  // preflight / transport: a check FAILed (fabric/)
constexpr int kOutOfMemory = 7;   // a rank could not allocate its buffers: the run stopped cleanly
}  // namespace exit_code

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string call = {}, const char* file = nullptr,
        int line = 0);

  ErrorKind kind() const { return kind_; }
  const std::string& call() const { return call_; }
  const std::string& where() const { return where_; }
  int exit_code() const;

 private:
  ErrorKind kind_;
  std::string call_;
  std::string where_;
};

std::string_view name_of(ErrorKind kind);

// "commsweep: rank R (host H, GPU D): KIND: MESSAGE at FILE:LINE", the line every rank's
// error is printed as; "(host H)" alone for device -1 (none chosen yet, or the mpi backend).
std::string error_line(int rank, const std::string& host, int device, const Error& e);

// A bad command-line value: names the flag.
[[noreturn]] void throw_usage(const std::string& message);

}  // namespace commsweep
