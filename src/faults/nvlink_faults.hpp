// `commsweep nvlink --fault slow-pair:A,B` (testing only; run/nvlink_run.cpp checks first that
// world ranks A and B share a node): every timed copy of the pair's bandwidth tests, both ways,
// is made --fault-slowdown times, so that the pair's figures drop by that factor and the judge
// must name that pair alone. The all-to-one and one-to-all tests and the latency are untouched.
#pragma once

#include "sweep/fault_points.hpp"

namespace commsweep::faults {

class NvlinkFaults final : public FaultPoints {
 public:
  // SLOW_A and SLOW_B: the world ranks --fault names (-1: none); SLOWDOWN: --fault-slowdown.
  NvlinkFaults(int slow_a, int slow_b, int slowdown) : a_(slow_a), b_(slow_b), slowdown_(slowdown) {}
  int copies_per_timed_copy(int src_rank, int dst_rank) override {
    const bool planted = a_ >= 0 && ((src_rank == a_ && dst_rank == b_) || (src_rank == b_ && dst_rank == a_));
    return planted ? slowdown_ : 1;
  }

 private:
  int a_, b_;
  int slowdown_;
};

}  // namespace commsweep::faults
