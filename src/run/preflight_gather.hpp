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
// prints one summary line and the FAIL rows. The run goes on; rank 0 gets its FAIL checks, one
// line each ("vm preflight host.shm: /dev/shm is 64 MiB, ..."), which the run's ending counts
// as health FAILs (exit 6, summary.ok false, summary.health_fail); the other ranks get none.
std::vector<std::string> run_brief_preflight(World& world, char** envp, double timeout_s);
// "HOST preflight CHECK: REASON" for every FAIL check of NODES, in order.
std::vector<std::string> preflight_fail_lines(const std::vector<fabric::NodeReport>& nodes);

}  // namespace commsweep
