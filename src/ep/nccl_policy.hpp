// The NCCL version policy for the EP implementations a sweep asks for: each implementation's
// paths (ep/implementation.hpp: nccl_paths) decided, every rank agreeing on its own path, and
// what a refusal does to the sweep. The workload decides; the run records the decisions
// (run_setup's record_nccl_decision).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ep/ep_config.hpp"
#include "nccl_policy/policy.hpp"
#include "runtime/world.hpp"

namespace commsweep::ep {

// An implementation whose own path a rank's library refused: its --ep-impl name and why (the
// first refusing rank's reason, naming it where there are several ranks), on every rank.
struct Refusal {
  std::string impl;
  std::string why;
};

// The policy's decisions for the implementations `config` asks for, in the registry's order,
// on this rank's library `versions` (nccl backend only), each handed to `record` as it is made.
// Every rank agrees on each implementation's own (first) path, collective over `world`; where
// another rank refused it, its paths are recorded refused here too. Returns the refusals.
std::vector<Refusal> decide_nccl_policy(World& world, const nccl_policy::Versions& versions, const EpConfig& config,
                                        const std::function<void(const nccl_policy::Decision&)>& record);

// `refusals` applied to `config`: never a silent fallback. The only implementation asked for,
// refused, is an Error (exit code 3); beside others it is left out and the returned note says
// why. "" when nothing was left out.
std::string leave_out_refused(EpConfig& config, const std::vector<Refusal>& refusals);

}  // namespace commsweep::ep
