#include "core/error.hpp"

namespace commsweep {

Error::Error(ErrorKind kind, std::string message, std::string call, const char* file, int line)
    : std::runtime_error(std::move(message)), kind_(kind), call_(std::move(call)) {
  if (file != nullptr) where_ = std::string(file) + ":" + std::to_string(line);
}

int Error::exit_code() const {
  switch (kind_) {
    case ErrorKind::Usage: return exit_code::kUsage;
    case ErrorKind::Timeout: return exit_code::kTimeout;
    case ErrorKind::WrongResults: return exit_code::kWrongData;
    case ErrorKind::OutOfMemory: return exit_code::kOutOfMemory;
    case ErrorKind::Output: return exit_code::kOutputFailed;
    default: return exit_code::kRuntime;
  }
}

std::string_view name_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return "usage error";
    case ErrorKind::Cuda: return "CUDA error";
    case ErrorKind::Nccl: return "NCCL error";
    case ErrorKind::Mpi: return "MPI error";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::WrongResults: return "wrong results";
    case ErrorKind::Runtime: return "error";
    case ErrorKind::OutOfMemory: return "out of memory";
    case ErrorKind::Output: return "output not written";
  }
  return "error";
}

std::string error_line(int rank, const std::string& host, int device, const Error& e) {
  // Device -1: the mpi backend, whose buffers are host memory: no GPU to name.
  const std::string gpu = device < 0 ? "" : ", GPU " + std::to_string(device);
  std::string line = "commsweep: rank " + std::to_string(rank) + " (host " + host + gpu + "): " +
                     std::string(name_of(e.kind())) + ": " + e.what();
  if (!e.where().empty()) line += " at " + e.where();
  return line;
}

void throw_usage(const std::string& message) { throw Error(ErrorKind::Usage, message); }

}  // namespace commsweep
