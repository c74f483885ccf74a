// The ranks of one node (World's nodes: a host, or the ranks sharing NCCL_HOSTID) as their own
// communicator, for what `commsweep nvlink` exchanges inside a node: the CUDA IPC handles, the
// barrier between two tests, each test's timings. Every call waits with its phase's deadline
// (World::wait: a rank that never arrives is named and the job ends, exit code 4).
#pragma once

#include <mpi.h>

#include <cstring>
#include <vector>

#include "runtime/world.hpp"

namespace commsweep::p2p {

class NodeGroup {
 public:
  explicit NodeGroup(World& world);
  ~NodeGroup();
  NodeGroup(const NodeGroup&) = delete;
  NodeGroup& operator=(const NodeGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The world rank of the node's rank NODE_RANK.
  int world_rank(int node_rank) const { return world_ranks_[static_cast<std::size_t>(node_rank)]; }
  World& world() { return world_; }

  // Every rank's BYTES bytes at DATA, in node rank order (a barrier too).
  std::vector<char> all_gather(const void* data, int bytes, const Phase& phase);
  template <typename T>
  std::vector<T> all_gather(const T& value, const Phase& phase) {
    const std::vector<char> raw = all_gather(&value, static_cast<int>(sizeof(T)), phase);
    std::vector<T> out(static_cast<std::size_t>(size_));
    std::memcpy(out.data(), raw.data(), raw.size());
    return out;
  }

 private:
  World& world_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::vector<int> world_ranks_;  // node rank -> world rank
};

}  // namespace commsweep::p2p
