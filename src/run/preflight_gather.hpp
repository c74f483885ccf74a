// The preflight over the job: one rank per host checks its node (fabric/preflight.hpp, no MPI),
// rank 0 gathers the reports. `commsweep preflight` prints them in full; every measuring run
// starts with the brief one (unless --no-preflight).
#pragma once

#include <string>
#include <vector>

#include "fabric/preflight.hpp"

namespace commsweep {

class World;

// Local rank 0 of each host checks the node (BIND_NOTE, when given, is its host's "bind" row);
// the others report their rank count only. Rank 0 gets every host's report, in rank order.
std::vector<fabric::NodeReport> gather_preflight(World& world, const fabric::PreflightOptions& options, char** envp,
                                                 double timeout_s, const std::string& bind_note);
// Rank 0's exit CODE on every rank.
int broadcast_preflight_verdict(World& world, int code, double timeout_s);

// Before a measuring run (unless --no-preflight): the node checks, brief, on every rank; rank 0
// prints one summary line and the FAIL rows. Returns whether any check FAILed (the run goes on).
bool run_brief_preflight(World& world, char** envp, double timeout_s);

}  // namespace commsweep
