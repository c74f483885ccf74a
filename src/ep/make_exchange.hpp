// The exchanges of a sweep: one per implementation it asks for (--ep-impl), each made by its
// descriptor (ep/implementation.hpp) on the backend of this run.
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

// One exchange per implementation of config.impls, in that order, owned for the sweep's life.
// An implementation that cannot run on the backend is a usage Error naming --ep-impl.
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
