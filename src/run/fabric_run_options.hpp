// The fabric flags of every measuring run (run/run_settings.hpp reads them): the brief preflight
// before the run, the transport NCCL must use, the CPU binding of each rank, and the health
// rules' thresholds and detail.
#pragma once

#include <string>

#include "fabric/nccl_log.hpp"

namespace commsweep {

enum class BindMode { None, Auto };

struct FabricRunOptions {
  bool preflight = true;  // --no-preflight turns the brief preflight off
  fabric::RequiredTransport required = fabric::RequiredTransport::Any;  // --require-transport
  bool require_gdr = false;                                             // --require-gdr
  BindMode bind = BindMode::None;                                       // --bind
  std::string health_thresholds;  // --health-thresholds FILE (read before anything is measured)
  bool health_verbose = false;    // --health-verbose
  std::string expected;           // --expected FILE (read before anything is measured)

  bool requires_transport() const { return required != fabric::RequiredTransport::Any || require_gdr; }
};

// The usage message for a requirement on a run whose backend is (or turned out to be) mpi.
std::string transport_needs_nccl(const FabricRunOptions& options, const std::string& why_mpi);

}  // namespace commsweep
