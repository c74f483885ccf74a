// The NCCL version policy for the EP implementations (ep/nccl_policy.hpp).
#include "ep/nccl_policy.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace commsweep::ep {
namespace {

// "" where every rank's `refusal` is empty; else the first refusing rank's, naming it where
// there are several ranks (their libraries may differ), on every rank.
std::string agreed_refusal(World& world, const std::string& refusal, double timeout_s) {
  const Phase phase{"NCCL version policy (--ep-impl)", Deadline::after(timeout_s)};
  const auto all = world.gather(refusal, phase);
  std::string message;
  if (world.rank() == 0) {
    for (std::size_t r = 0; r < all.size() && message.empty(); ++r) {
      if (all[r].empty()) continue;
      message = world.size() > 1 ? "rank " + std::to_string(r) + " (" + world.hosts_by_rank()[r] + "): " + all[r]
                                 : all[r];
    }
  }
  int length = static_cast<int>(message.size());
  world.broadcast(&length, sizeof(length), 0, phase);
  message.resize(static_cast<std::size_t>(length));
  if (length > 0) world.broadcast(message.data(), length, 0, phase);
  return message;
}

}  // namespace

bool asks_for(const EpConfig& config, EpImpl impl) {
  return std::find(config.impls.begin(), config.impls.end(), impl) != config.impls.end();
}

std::string decide_nccl_policy(World& world, const nccl_policy::Versions& v, const EpConfig& config,
                               const std::function<void(const nccl_policy::Decision&)>& record) {
  using nccl_policy::Path;
  if (asks_for(config, EpImpl::Alltoallv)) record(nccl_policy::decide(Path::AlltoallvEp, v));
  if (!asks_for(config, EpImpl::Lsa)) return "";
  nccl_policy::Decision lsa = nccl_policy::decide(Path::LsaEp, v);
  nccl_policy::Decision counts = nccl_policy::decide(Path::LlAllToAllCounts, v);
  const std::string why = agreed_refusal(world, lsa.refused() ? lsa.message : "", config.timeout_s);
  if (!why.empty() && !lsa.refused()) {  // another rank's library
    lsa = {Path::LsaEp, nccl_policy::Verdict::Refused, why, {}};
    counts = {Path::LlAllToAllCounts, nccl_policy::Verdict::Refused,
              "the counts' LL all-to-all needs the lsa device communicator: " + why, {}};
  }
  record(lsa);
  record(counts);
  return why;
}

std::string leave_out_refused_lsa(EpConfig& config, const std::string& refusal) {
  if (refusal.empty() || !asks_for(config, EpImpl::Lsa)) return "";
  // Never a silent fallback: lsa alone is an error; beside alltoallv, a note says why it is gone.
  if (config.impls.size() == 1) throw Error(ErrorKind::Runtime, "--ep-impl lsa: " + refusal);
  config.impls.erase(std::remove(config.impls.begin(), config.impls.end(), EpImpl::Lsa), config.impls.end());
  return "--ep-impl lsa left out by the NCCL version policy (the rows are alltoallv's only): " + refusal;
}

}  // namespace commsweep::ep
