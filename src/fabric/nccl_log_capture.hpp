// Captures NCCL's INFO lines of one process, so that a run can say which transport NCCL used.
// NCCL reads NCCL_DEBUG, NCCL_DEBUG_FILE and NCCL_DEBUG_SUBSYS once, at its first log line, so
// the capture must exist before the first NCCL call (ncclGetUniqueId / ncclCommInitRank).
//
// Three cases, decided from the environment the user gave:
// - neither NCCL_DEBUG nor NCCL_DEBUG_FILE set (the usual case): a private folder is made,
//   NCCL_DEBUG=INFO, NCCL_DEBUG_FILE=<folder>/nccl.%h.%p and NCCL_DEBUG_SUBSYS (the subsystems
//   nccl_log.hpp reads) are set; finish() or the destructor removes the folder and restores
//   the variables as they were. NCCL keeps writing the rest of its lines into its open, removed
//   file: nothing reaches the user's terminal that would not have without commsweep.
// - the user set NCCL_DEBUG=INFO (or TRACE) and NCCL_DEBUG_FILE: nothing is changed; the
//   user's file (%h and %p expanded as NCCL does) is read, and left in place.
// - anything else the user set (NCCL_DEBUG=WARN, INFO printed to stdout, a file without a
//   level): nothing is captured; note() says why and how to get a report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"

namespace commsweep::fabric {

// The subsystems whose INFO lines nccl_log.hpp reads: INIT (the rank, the network, channels,
// each connection "via ..."), NET (GPUDirect RDMA per HCA), GRAPH (the graph's type), P2P and
// SHM (their connection details). None of them logs per collective.
inline constexpr const char* kCaptureSubsystems = "INIT,NET,GRAPH,P2P,SHM";

class NcclLogCapture {
 public:
  enum class Mode { Private, UserFile, Off };

  NcclLogCapture();  // throws std::runtime_error when the private folder cannot be made
  ~NcclLogCapture();
  NcclLogCapture(const NcclLogCapture&) = delete;
  NcclLogCapture& operator=(const NcclLogCapture&) = delete;

  Mode mode() const { return mode_; }
  bool active() const { return mode_ != Mode::Off; }  // there will be lines to read
  const std::string& folder() const { return folder_; }  // Private only
  // How the lines are had ("captured"), or whose settings prevent it and what to do.
  const std::string& note() const { return note_; }
  // Every rank the lines name so far.
  std::vector<RankTransport> read() const;
  // Private: removes the folder and restores the environment now (NCCL has read it once).
  void finish();

 private:
  Mode mode_ = Mode::Off;
  std::string folder_;
  std::string user_file_;  // UserFile: the expanded path
  std::string note_;
  std::optional<std::string> saved_subsys_;  // the user's NCCL_DEBUG_SUBSYS, restored by finish()
};

// NCCL_DEBUG_FILE's pattern expanded as NCCL does: %h the host name up to its first '.' (with
// '%' and '/' made '-'), %p the process id, %% a '%'; other % sequences stay as they are.
std::string expand_nccl_debug_file(const std::string& pattern, const std::string& host, int pid);
// This machine's host name as NCCL writes it into file names and log lines.
std::string nccl_log_host_name();

}  // namespace commsweep::fabric
