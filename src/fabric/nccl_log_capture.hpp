// Captures NCCL's INFO lines of one process into a private temporary folder: NCCL_DEBUG=INFO
// and NCCL_DEBUG_FILE=<dir>/nccl.%h.%p are set before NCCL's first call (NCCL reads them
// once), the files are read back with nccl_log.hpp, and the folder is removed at the end.
// A user's own NCCL_DEBUG / NCCL_DEBUG_FILE are left alone (nothing is captured then).
// Not yet wired into the nccl backend: that needs a GPU to prove (see README).
#pragma once

#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"

namespace commsweep::fabric {

class NcclLogCapture {
 public:
  NcclLogCapture();  // throws std::runtime_error when the folder cannot be made
  ~NcclLogCapture();
  NcclLogCapture(const NcclLogCapture&) = delete;
  NcclLogCapture& operator=(const NcclLogCapture&) = delete;

  bool active() const { return active_; }
  const std::string& folder() const { return folder_; }
  // Every rank this process's log files name.
  std::vector<RankTransport> read() const;

 private:
  bool active_ = false;
  std::string folder_;
};

}  // namespace commsweep::fabric
