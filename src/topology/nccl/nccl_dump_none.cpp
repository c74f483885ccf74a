#include "core/error.hpp"
#include "topology/nccl/nccl_dump.hpp"

namespace commsweep::topology {

void dump_nccl_topology(const std::string&) {
  throw Error(ErrorKind::Runtime,
              "topo dump needs the nccl backend: this commsweep was built without CUDA/NCCL "
              "(COMMSWEEP_CUDA=OFF); run a GPU build on the node");
}

}  // namespace commsweep::topology
