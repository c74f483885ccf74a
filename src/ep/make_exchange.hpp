// The EP factory: the exchange each implementation runs on the backend of this run
// (NcclExchange / LsaExchange on the nccl backend, HostExchange on the mpi backend).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/backend.hpp"
#include "ep/ep_config.hpp"
#include "ep/ep_sweep.hpp"
#include "ep/exchange.hpp"
#include "runtime/world.hpp"

namespace commsweep::ep {

// The exchange of `impl` on `backend`. --ep-impl lsa on a backend other than nccl is a usage
// Error; lsa's device communicator is set up here, within timeout_s.
std::unique_ptr<EpExchange> make_exchange(World& world, Backend& backend, EpImpl impl, double timeout_s,
                                          int blocks);

// One exchange per implementation of config.impls, in that order, owned for the sweep's life.
class Exchanges {
 public:
  Exchanges(World& world, Backend& backend, const EpConfig& config);
  // What EpSweep runs.
  const std::vector<NamedExchange>& named() const { return named_; }
  // How each ran (known once it has), "" for one with nothing to say; in config.impls' order.
  std::vector<std::string> notes() const;

 private:
  std::vector<std::unique_ptr<EpExchange>> owned_;
  std::vector<NamedExchange> named_;
};

}  // namespace commsweep::ep
