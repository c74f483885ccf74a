// Typed errors. A failing CUDA, NCCL or MPI call becomes an Error naming the call and where
// it was made; the top level adds host, rank and device when it prints it.
#pragma once

#include <stdexcept>
#include <string>

#include "core/exit_codes.hpp"

namespace commsweep {

// Each kind's exit code (Error::exit_code) is one of core/exit_codes.hpp's table.
// Output: a file or standard output that could not be written (output/output_file.hpp).
enum class ErrorKind { Usage, Cuda, Nccl, Mpi, Timeout, WrongResults, Runtime, OutOfMemory, Output };

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
