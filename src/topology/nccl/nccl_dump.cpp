// Built only with the nccl backend. Not run on the CI machine (no GPU).
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdlib.h>

#include <vector>

#include "core/error.hpp"
#include "topology/nccl/nccl_dump.hpp"

namespace commsweep::topology {
namespace {

void check(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess) throw Error(ErrorKind::Nccl, std::string(ncclGetErrorString(rc)), call);
}

// Restores the environment variable as it was, whatever happens.
class ScopedEnv {
 public:
  // value nullptr: unset it for the scope.
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

void dump_nccl_topology(const std::string& path) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    throw Error(ErrorKind::Runtime, "topo dump: no GPU on this node (cudaGetDeviceCount)");
  }
  // NCCL writes the file while it sets up the communicator, on the rank NCCL_TOPO_DUMP_FILE_RANK
  // (0 here: one process holds every GPU, as ncclCommInitAll builds it).
  const ScopedEnv file("NCCL_TOPO_DUMP_FILE", path.c_str());
  const ScopedEnv rank("NCCL_TOPO_DUMP_FILE_RANK", "0");
  // A topology file given to NCCL would be dumped back as read: dump what NCCL detects.
  const ScopedEnv no_topo("NCCL_TOPO_FILE", nullptr);
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(devices), nullptr);
  check(ncclCommInitAll(comms.data(), devices, nullptr), "ncclCommInitAll");
  for (auto c : comms) ncclCommDestroy(c);
}

}  // namespace commsweep::topology
