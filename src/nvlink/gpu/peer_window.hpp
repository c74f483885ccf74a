// Every GPU's memory of one node, mapped into every rank of it with CUDA IPC
// (cudaIpcGetMemHandle on one cudaMalloc per rank, the handles exchanged over the node's
// communicator, cudaIpcOpenMemHandle on the others'): what `commsweep nvlink`'s copies and
// kernels load and store through. Each rank's allocation:
//   flags   64 B per GPU of the node: where that GPU writes the latency test's flag to this one
//   send    BYTES: this GPU's data (the pattern, seeded with its node index)
//   recv    BYTES per GPU of the node: slot k is where GPU k's data lands here
// A peer that cannot be mapped (no P2P between the two GPUs, a GPU this rank cannot see) is
// recorded with CUDA's words; its pairs are not measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nvlink/gpu/node_group.hpp"

namespace commsweep::p2p {

class PeerWindow {
 public:
  PeerWindow(NodeGroup& group, std::size_t bytes, const Phase& phase);
  ~PeerWindow();
  PeerWindow(const PeerWindow&) = delete;
  PeerWindow& operator=(const PeerWindow&) = delete;

  // Whether GPU K's memory is mapped here (always true for this rank's own); why not otherwise.
  bool mapped(int k) const { return base(k) != nullptr; }
  const std::string& why_not(int k) const { return errors_[static_cast<std::size_t>(k)]; }

  // GPU K's send buffer and its receive slot for SOURCE's data, as this rank addresses them.
  void* send(int k) const { return base(k) + kHeaderBytes; }
  void* recv(int k, int source) const {
    return base(k) + kHeaderBytes + bytes_ * (1 + static_cast<std::size_t>(source));
  }
  // GPU K's flag written by GPU FROM.
  std::uint32_t* flag(int k, int from) const {
    return reinterpret_cast<std::uint32_t*>(base(k) + kFlagStride * static_cast<std::size_t>(from));
  }
  std::size_t bytes() const { return bytes_; }

  static constexpr std::size_t kFlagStride = 64;  // a flag per cache line
  // Flags for up to 16384 GPUs before the data, which starts 1 MiB in (aligned for any access).
  static constexpr std::size_t kHeaderBytes = std::size_t{1} << 20;

 private:
  char* base(int k) const { return bases_[static_cast<std::size_t>(k)]; }
  std::size_t bytes_;
  int me_;
  char* local_ = nullptr;
  std::vector<char*> bases_;
  std::vector<std::string> errors_;
};

}  // namespace commsweep::p2p
