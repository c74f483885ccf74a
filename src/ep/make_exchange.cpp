// The EP factory (ep/make_exchange.hpp): the exchange by backend and implementation.
#include "ep/make_exchange.hpp"

#include "ep/host_exchange.hpp"
#include "core/error.hpp"
#if COMMSWEEP_HAVE_NCCL_BACKEND
#include "ep/lsa_exchange.hpp"
#include "ep/nccl_exchange.hpp"
#endif

namespace commsweep::ep {

std::unique_ptr<EpExchange> make_exchange(World& world, Backend& backend, EpImpl impl, double timeout_s,
                                          int blocks) {
#if COMMSWEEP_HAVE_NCCL_BACKEND
  if (auto* nccl = dynamic_cast<NcclBackend*>(&backend)) {
    if (impl == EpImpl::Lsa) {
      const Phase setup{"ep lsa set-up (device communicator)", Deadline::after(timeout_s)};
      return std::make_unique<LsaExchange>(world, *nccl, setup, blocks);
    }
    return std::make_unique<NcclExchange>(world, *nccl);
  }
#endif
  (void)timeout_s;
  (void)blocks;
  if (impl == EpImpl::Lsa) {
    throw_usage("--ep-impl lsa: needs the nccl backend (GPUs, NCCL 2.28+); this run uses the " +
                std::string(backend.name()) + " backend");
  }
  return std::make_unique<HostExchange>(world);
}

Exchanges::Exchanges(World& world, Backend& backend, const EpConfig& config) {
  for (const EpImpl impl : config.impls) {
    owned_.push_back(make_exchange(world, backend, impl, config.timeout_s, config.lsa_blocks));
    named_.push_back({impl, owned_.back().get()});
  }
}

std::vector<std::string> Exchanges::notes() const {
  std::vector<std::string> out;
  for (const auto& x : owned_) out.push_back(x->note());
  return out;
}

}  // namespace commsweep::ep
