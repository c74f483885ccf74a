// The NCCL version policy for the EP implementations a sweep asks for: which paths are
// decided, every rank agreeing on lsa, and what a refused lsa does to the sweep. The workload
// decides; the command records the decisions (cli/run_setup's record_nccl_decision).
#pragma once

#include <functional>
#include <string>

#include "ep/ep_config.hpp"
#include "nccl_policy/policy.hpp"
#include "runtime/world.hpp"

namespace commsweep::ep {

// True where config.impls holds `impl`.
bool asks_for(const EpConfig& config, EpImpl impl);

// The policy's decisions for the implementations `config` asks for, on this rank's library
// `versions` (nccl backend only), each handed to `record` as it is made: alltoallv's, then
// lsa's and the counts' LL all-to-all's. Where lsa is asked for, every rank agrees (collective
// over `world`). Returns "" where lsa is accepted on every rank (or not asked for); else the
// first refusing rank's reason, naming it where there are several ranks, on every rank.
std::string decide_nccl_policy(World& world, const nccl_policy::Versions& versions, const EpConfig& config,
                               const std::function<void(const nccl_policy::Decision&)>& record);

// `refusal` ("" where lsa is accepted on every rank) applied to `config`: --ep-impl lsa alone
// refused is an Error (exit code 3); beside alltoallv it is left out and the returned note
// says why. "" when nothing was left out.
std::string leave_out_refused_lsa(EpConfig& config, const std::string& refusal);

}  // namespace commsweep::ep
