// The planted faults of `commsweep pairs` (testing only; pairs/fault_checks.hpp checks them
// against the job first): the slow rank or leaf (--fault slow-rank:R, slow-leaf:LEAF) as a
// slowed backend, and the hang (--fault hang:R@ROUND) at the rounds' named point.
#pragma once

#include <memory>
#include <string>

#include "comm/backend.hpp"
#include "topology/network/topology.hpp"
#include "runtime/world.hpp"
#include "sweep/fault_points.hpp"

namespace commsweep::faults {

// This rank's backend slowed SLOWDOWN times where a fault names it: SLOW_RANK (every exchange),
// or SLOW_LEAF, a leaf of TOPOLOGY holding this rank (every exchange with a rank of another
// leaf: a bad uplink of this leaf); null where none does. BACKEND outlives it.
std::unique_ptr<Backend> planted_slow_backend(World& world, Backend& backend, int slow_rank, const std::string& slow_leaf,
                                              double slowdown, const plan::Topology& topology);

// --fault hang:R@ROUND: rank R stays alive and silent from that round (1-based) on, as a hung
// process would, until the job is ended by its peers' -T.
class PairsFaults final : public FaultPoints {
 public:
  // HANG_RANK and HANG_ROUND as --fault gave them (-1: none); RANK this process's.
  PairsFaults(int hang_rank, int hang_round, int rank)
      : hangs_(hang_rank >= 0 && hang_rank == rank), from_(hang_round), rank_(rank) {}
  void before_round(int round) override;

 private:
  bool hangs_;
  int from_;
  int rank_;
};

}  // namespace commsweep::faults
