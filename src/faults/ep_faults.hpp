// `commsweep ep --fault wrong-element:RANK` (testing only): that rank flips the lowest bit of the
// first byte of each output its check verifies (the dispatched payload, the combined tokens), so
// that the check must find one wrong dispatched and one wrong combined element.
#pragma once

#include <cstddef>

#include "sweep/fault_points.hpp"

namespace commsweep::faults {

class EpFaults final : public FaultPoints {
 public:
  // WRONG_RANK: the rank --fault names (-1: none); RANK: this process's.
  EpFaults(int wrong_rank, int rank) : flips_(wrong_rank >= 0 && wrong_rank == rank) {}
  void host_output(void* data, std::size_t bytes) override {
    if (flips_ && bytes > 0) *static_cast<unsigned char*>(data) ^= 0x01;
  }

 private:
  bool flips_;
};

}  // namespace commsweep::faults
