// The collective sweep's settings (nccl-tests' flags and the suite keys of a `kind: collective`
// entry): one table (settings/setting.hpp) that `commsweep TEST...`, `commsweep suite` and
// --help read.
#pragma once

#include <string>
#include <vector>

#include "settings/setting.hpp"
#include "core/sweep_config.hpp"

namespace commsweep {

// What a collective entry sets: the tests (a suite's key "tests"; on the command line the
// words before the flags) and the sweep.
struct CollectiveSettings {
  std::vector<std::string> tests;
  SweepConfig sweep;
};

// Sections of --help the entries are listed under.
inline constexpr const char* kSweepSection = "sweep";  // nccl-tests' flags
inline constexpr const char* kRunSection = "run";      // commsweep's own

const settings::Table<CollectiveSettings>& collective_settings();

// What needs the backend: --timer device and -G need nccl. Throws a usage Error naming the
// setting by where it came from.
void check_collective_backend(const SweepConfig& config, const settings::Origins& origins, bool backend_is_mpi);

}  // namespace commsweep
