#include "ep/implementation.hpp"

namespace commsweep::ep {

// ep_implementations() is generated from the descriptors present (impls_table.cpp.in).

const EpImplementation* find_ep_implementation(std::string_view name) {
  for (const EpImplementation* impl : ep_implementations()) {
    if (impl->name == name) return impl;
  }
  return nullptr;
}

settings::Value impl_setting(const EpConfig& config, std::string_view key) {
  if (const auto it = config.impl_settings.find(std::string(key)); it != config.impl_settings.end()) return it->second;
  for (const EpImplementation* impl : ep_implementations()) {
    for (const settings::Spec& spec : impl->settings) {
      if (spec.key == key && spec.default_text) {
        return settings::read(spec.type, settings::Given{"--" + spec.flag, settings::Given::From::Default,
                                                         *spec.default_text, ""});
      }
    }
  }
  return {};
}

std::vector<std::string> ep_implementation_names() {
  std::vector<std::string> out;
  for (const EpImplementation* impl : ep_implementations()) out.emplace_back(impl->name);
  return out;
}

}  // namespace commsweep::ep
