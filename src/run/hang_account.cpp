#include "run/hang_account.hpp"

#include <cstdlib>

#include "nccl_ras/account.hpp"
#include "nccl_ras/client.hpp"
#include "nccl_ras/status.hpp"
#include "run/results_keeper.hpp"
#include "runtime/world.hpp"

namespace commsweep {

std::vector<std::string> HangAccount::ask() {
  nccl_ras::Exchange x;
  if (!nccl_) {
    x.state = nccl_ras::State::NotAsked;
    x.why = "mpi backend: no NCCL";
  } else {
    const nccl_ras::Plan plan = nccl_ras::plan_from_environment(std::getenv("NCCL_RAS_ENABLE"), std::getenv("NCCL_RAS_ADDR"));
    x = plan.ask ? nccl_ras::ask_status(plan.request) : plan.instead;
  }
  const nccl_ras::Status status = nccl_ras::parse_status(x.text);
  std::shared_ptr<Keeper> keeper;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    keeper = keeper_.lock();
  }
  if (keeper) keeper->attach("nccl_ras", nccl_ras::to_json(x, status));
  return nccl_ras::account_lines(x, status);
}

void HangAccount::keep_in(std::shared_ptr<Keeper> keeper) {
  const std::lock_guard<std::mutex> lock(mutex_);
  keeper_ = keeper;
}

void witness_hangs_with(World& world, const std::shared_ptr<HangAccount>& account) {
  world.set_hang_witness([account] { return account->ask(); });
}

}  // namespace commsweep
