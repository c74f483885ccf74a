#include "ep/nccl_policy.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "ep/implementation.hpp"

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

bool asks_for(const EpConfig& config, std::string_view impl) {
  return std::find(config.impls.begin(), config.impls.end(), impl) != config.impls.end();
}

// "alltoallv's", "alltoallv's and x's": the implementations whose rows remain.
std::string rows_of(const std::vector<std::string>& impls) {
  std::string out;
  for (std::size_t i = 0; i < impls.size(); ++i) out += (i == 0 ? "" : " and ") + impls[i] + "'s";
  return out;
}

}  // namespace

std::vector<Refusal> decide_nccl_policy(World& world, const nccl_policy::Versions& v, const EpConfig& config,
                                        const std::function<void(const nccl_policy::Decision&)>& record) {
  std::vector<Refusal> refusals;
  for (const EpImplementation* impl : ep_implementations()) {
    if (!asks_for(config, impl->name) || impl->nccl_paths.empty()) continue;
    std::vector<nccl_policy::Decision> decisions;
    for (const auto path : impl->nccl_paths) decisions.push_back(nccl_policy::decide(path, v));
    const nccl_policy::Decision& own = decisions.front();
    const std::string why = agreed_refusal(world, own.refused() ? own.message : "", config.timeout_s);
    if (!why.empty() && !own.refused()) {  // another rank's library: refused here too
      for (auto& d : decisions) {
        const nccl_policy::Path* path = nccl_policy::find_path(d.path);
        const bool rides = path != nullptr && !path->needs.empty();
        d = {d.path, nccl_policy::Verdict::Refused, rides ? std::string(path->needs) + ": " + why : why, {}};
      }
    }
    for (const auto& d : decisions) record(d);
    if (!why.empty()) refusals.push_back({std::string(impl->name), why});
  }
  return refusals;
}

std::string leave_out_refused(EpConfig& config, const std::vector<Refusal>& refusals) {
  std::string notes;
  for (const Refusal& r : refusals) {
    if (!asks_for(config, r.impl)) continue;
    if (config.impls.size() == 1) throw Error(ErrorKind::Runtime, "--ep-impl " + r.impl + ": " + r.why);
    config.impls.erase(std::remove(config.impls.begin(), config.impls.end(), r.impl), config.impls.end());
    notes += (notes.empty() ? "" : "; ") + std::string("--ep-impl ") + r.impl +
             " left out by the NCCL version policy (the rows are " + rows_of(config.impls) + " only): " + r.why;
  }
  return notes;
}

}  // namespace commsweep::ep
