#include "run/fabric_run_options.hpp"

namespace commsweep {

std::string transport_needs_nccl(const FabricRunOptions& o, const std::string& why_mpi) {
  const std::string flag = o.required != fabric::RequiredTransport::Any ? "--require-transport" : "--require-gdr";
  return flag + ": the mpi backend makes no NCCL connections to verify (" + why_mpi +
         "); run on GPU nodes with --backend nccl, or drop " + flag;
}

}  // namespace commsweep
