// NCCL's own account of a hang, for the watchdog's verdict: on the nccl backend the local RAS
// service (NCCL_RAS_ADDR, localhost:28028) is asked once, bounded (src/nccl_ras), when the
// verdict is reached; where RAS is off (NCCL_RAS_ENABLE=0), absent (nothing listening) or there
// is no NCCL (the mpi backend), one line says so. The account joins the verdict on stderr and,
// through the results keeper, the JSON's top-level "nccl_ras" (results/schema).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace commsweep {

class Keeper;
class World;

class HangAccount {
 public:
  // NCCL: whether the run's backend is nccl. The environment is read when asked.
  explicit HangAccount(bool nccl) : nccl_(nccl) {}
  // The account's lines (the first a summary), asked now; the keeper, if any, gets the member.
  std::vector<std::string> ask();
  // Rank 0 with --json: the account goes into KEEPER's documents (an incomplete file written
  // by the last words, which come after the verdict).
  void keep_in(std::shared_ptr<Keeper> keeper);

 private:
  bool nccl_;
  std::mutex mutex_;
  std::weak_ptr<Keeper> keeper_;
};

// Makes WORLD ask ACCOUNT on a hang verdict (World::set_hang_witness).
void witness_hangs_with(World& world, const std::shared_ptr<HangAccount>& account);

}  // namespace commsweep
