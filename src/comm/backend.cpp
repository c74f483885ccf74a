#include "comm/backend.hpp"

namespace commsweep {

CollectiveArgs at_offset(const CollectiveArgs& args, std::size_t offset) {
  CollectiveArgs moved = args;
  moved.send = static_cast<const char*>(args.send) + offset;
  moved.recv = static_cast<char*>(args.recv) + offset;
  return moved;
}

std::string_view name_of(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "all_reduce";
    case Collective::AllGather: return "all_gather";
    case Collective::ReduceScatter: return "reduce_scatter";
    case Collective::AllToAll: return "alltoall";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::SendRecv: return "sendrecv";
  }
  return "unknown";
}

}  // namespace commsweep
