// Which results files may make one baseline: complete runs of one setting, unless the user says
// otherwise (`commsweep baseline --allow-incomplete`, `--allow-mixed`).
#pragma once

#include <string>
#include <vector>

#include "report/result.hpp"

namespace commsweep::regress {

// What a run was taken with, for telling runs of other settings apart: the backend, the ranks,
// the buffers and the arguments without the file names they were written to.
std::string run_settings_text(const report::Provenance& p);

// A usage Error naming the file (FILES[i] is RUNS[i]'s) of a run that ended early (unless
// ALLOW_INCOMPLETE) or was taken with other settings than the first (unless ALLOW_MIXED).
void require_comparable_runs(const std::vector<std::string>& files, const std::vector<report::Results>& runs,
                             bool allow_incomplete, bool allow_mixed);

}  // namespace commsweep::regress
