// The implementations of the MoE exchange (--ep-impl NAME), registered as the collectives are:
// one descriptor file each under ep/impls/ (<name>.cpp defining `const EpImplementation&
// <name>_ep_impl()`), the table generated from the files present. --ep-impl's choices, its
// --help paragraphs, the schema's ep_impls enum and the NCCL version policy's paths come from
// the descriptors; nothing else names an implementation.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "comm/backend.hpp"
#include "ep/ep_config.hpp"
#include "ep/exchange.hpp"
#include "runtime/world.hpp"
#include "settings/setting.hpp"

namespace commsweep::ep {

struct EpImplementation {
  std::string_view name;  // --ep-impl's and the row's name
  int order;              // its place in --ep-impl's list, --help and the schema
  // --help's paragraph under "Implementations", one line per '\n' (printed after the name).
  std::string_view help;
  // The NCCL version policy's paths it takes on the nccl backend (src/nccl_policy/paths/),
  // decided before the preamble: a refusal of the first, on any rank, leaves the implementation
  // out of the sweep (or ends the run where it is the only one asked for).
  std::vector<std::string_view> nccl_paths;
  // Its exchange on BACKEND for CONFIG's cases; a usage Error naming --ep-impl where it cannot
  // run on that backend.
  std::unique_ptr<EpExchange> (*make)(World& world, Backend& backend, const EpConfig& config);
  // Its own settings, where it has any (lsa's --lsa-blocks): `commsweep ep` takes their flags,
  // --help lists them under the run's settings, a suite's ep sweep takes their keys, and make()
  // reads their values from EpConfig::impl_settings (impl_setting). The section is the table's.
  std::vector<settings::Spec> settings;
};

// Every implementation, in `order`.
const std::vector<const EpImplementation*>& ep_implementations();
// The implementation of that name, or nullptr.
const EpImplementation* find_ep_implementation(std::string_view name);
// Their names, in `order` (--ep-impl's choices, the schema's enum).
std::vector<std::string> ep_implementation_names();
// The value of an implementation's own setting of that suite KEY (EpImplementation::settings):
// as read, else its default read under its type (a config not filled from the settings table).
settings::Value impl_setting(const EpConfig& config, std::string_view key);

}  // namespace commsweep::ep
