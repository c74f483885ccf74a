#include "ep/implementation.hpp"

namespace commsweep::ep {

// ep_implementations() is generated from the descriptors present (impls_table.cpp.in).

const EpImplementation* find_ep_implementation(std::string_view name) {
  for (const EpImplementation* impl : ep_implementations()) {
    if (impl->name == name) return impl;
  }
  return nullptr;
}

std::vector<std::string> ep_implementation_names() {
  std::vector<std::string> out;
  for (const EpImplementation* impl : ep_implementations()) out.emplace_back(impl->name);
  return out;
}

}  // namespace commsweep::ep
