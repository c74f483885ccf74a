#include "ep/make_exchange.hpp"

#include "core/error.hpp"
#include "ep/implementation.hpp"

namespace commsweep::ep {

Exchanges::Exchanges(World& world, Backend& backend, const EpConfig& config) {
  for (const std::string& name : config.impls) {
    const EpImplementation* impl = find_ep_implementation(name);
    if (impl == nullptr) throw_usage("--ep-impl: unknown implementation '" + name + "'");
    owned_.push_back(impl->make(world, backend, config));
    named_.push_back({name, owned_.back().get()});
  }
}

std::vector<std::string> Exchanges::notes() const {
  std::vector<std::string> out;
  for (const auto& x : owned_) out.push_back(x->note());
  return out;
}

}  // namespace commsweep::ep
