// The EP sweep's settings (`commsweep ep`'s flags, the keys of a suite's `kind: ep` sweep, which
// `ep --suite FILE` reads too): one table (settings/setting.hpp) for the command line, suite
// files and --help.
#pragma once

#include "ep/ep_config.hpp"
#include "settings/setting.hpp"

namespace commsweep::ep {

// Sections of --help the entries are listed under.
inline constexpr const char* kAxesSection = "axes";          // comma lists: every combination a row
inline constexpr const char* kSettingsSection = "settings";

// What can be refused before the ranks are counted is refused here (fp8's 128-element blocks,
// top-k within the experts, the routing file with routing file); what needs the number of
// ranks is ep::invalid's.
const settings::Table<EpConfig>& ep_settings();

}  // namespace commsweep::ep
