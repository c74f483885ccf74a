#include "nvlink/gpu/node_group.hpp"

#include "runtime/mpi_check.hpp"

namespace commsweep::p2p {

NodeGroup::NodeGroup(World& world) : world_(world) {
  CS_MPI(MPI_Comm_split(world.comm(), world.node_of(world.rank()), world.rank(), &comm_));
  CS_MPI(MPI_Comm_rank(comm_, &rank_));
  CS_MPI(MPI_Comm_size(comm_, &size_));
  // The split above keys the node's ranks by world rank: node rank k is its k-th in world order.
  for (int r = 0; r < world.size(); ++r)
    if (world.node_of(r) == world.node_of(world.rank())) world_ranks_.push_back(r);
}

NodeGroup::~NodeGroup() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<char> NodeGroup::all_gather(const void* data, int bytes, const Phase& phase) {
  std::vector<char> out(static_cast<std::size_t>(bytes) * static_cast<std::size_t>(size_));
  MPI_Request request = MPI_REQUEST_NULL;
  CS_MPI(MPI_Iallgather(data, bytes, MPI_BYTE, out.data(), bytes, MPI_BYTE, comm_, &request));
  world_.wait(&request, phase);
  return out;
}

}  // namespace commsweep::p2p
