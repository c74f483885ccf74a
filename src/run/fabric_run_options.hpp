// The fabric flags of every command that measures (`commsweep TEST...`, `commsweep ep`,
// `commsweep suite`, `commsweep pairs`): the brief preflight before the run, the transport NCCL
// must use, and the CPU binding of each rank. One flag block and one parser, so the commands agree.
#pragma once

#include <string>

#include "fabric/nccl_log.hpp"

namespace boost::program_options {
class options_description;
class variables_map;
}  // namespace boost::program_options

namespace commsweep {

enum class BindMode { None, Auto };

struct FabricRunOptions {
  bool preflight = true;  // --no-preflight turns the brief preflight off
  fabric::RequiredTransport required = fabric::RequiredTransport::Any;  // --require-transport
  bool require_gdr = false;                                             // --require-gdr
  BindMode bind = BindMode::None;                                       // --bind

  bool requires_transport() const { return required != fabric::RequiredTransport::Any || require_gdr; }
};

// --no-preflight, --require-transport, --require-gdr, --bind.
boost::program_options::options_description fabric_run_flags();
// Throws a usage Error naming the flag: a bad value, or --require-transport / --require-gdr
// with --backend mpi (the mpi backend makes no NCCL connections to verify).
FabricRunOptions parse_fabric_run_flags(const boost::program_options::variables_map& vm, bool backend_is_mpi);

// The usage message for a requirement on a run whose backend turned out to be mpi.
std::string transport_needs_nccl(const FabricRunOptions& options, const std::string& why_mpi);

}  // namespace commsweep
