#include "p2p/node_group.hpp"

#include "p2p/measure_node.hpp"
#include "runtime/mpi_check.hpp"

namespace commsweep::p2p {

NodeGroup::NodeGroup(World& world) : world_(world) {
  CS_MPI(MPI_Comm_split(world.comm(), world.node_of(world.rank()), world.rank(), &comm_));
  CS_MPI(MPI_Comm_rank(comm_, &rank_));
  CS_MPI(MPI_Comm_size(comm_, &size_));
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

int node_index_of(const World& world, int rank) {
  int index = 0;
  for (int r = 0; r < rank; ++r) index += world.node_of(r) == world.node_of(rank);
  return index;
}

}  // namespace commsweep::p2p
