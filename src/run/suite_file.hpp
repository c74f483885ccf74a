// A suite file (`commsweep suite FILE`): JSON or YAML, a list of sweeps (or a mapping whose key
// "sweeps" holds the list, beside an optional "description"), each a mapping: `name` (optional,
// unique), `kind` (a registered workload: run/workload.hpp) and that workload's keys and the
// run's ("timeout"). Each sweep's keys are read through its workload's settings table and the
// run's, so a value is refused or accepted exactly as its flag; a refusal names the file, line,
// sweep and key.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/measure.hpp"
#include "run/run_settings.hpp"
#include "run/workload.hpp"

namespace commsweep {

struct SuiteSweeps {
  std::vector<std::unique_ptr<Measurement>> owned;
  std::vector<RunSweep> sweeps;  // each pointing at its measurement in `owned`
};

// The suite's command line over every sweep's keys: RUN_FLAGS (-T given overrides each sweep's
// "timeout"), CHECK (-c given overrides each sweep's "check", as its workload reads it), RUN the
// suite's run settings (its backend is every sweep's).
struct SuiteOverrides {
  settings::Flags run_flags;
  std::optional<int> check;
  RunSettings run;
};

// Parses TEXT (the contents of PATH) and reads every sweep; throws a usage Error
// "PATH:LINE: ..." on the first problem.
SuiteSweeps read_suite(const std::string& path, const std::string& text, const SuiteOverrides& overrides);

// "collective, ep or pairs": the kinds a sweep may name.
std::string suite_kinds();

}  // namespace commsweep
