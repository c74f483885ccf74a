// The collective sweeps' planted faults (--fault NAME:RANK[@SIZE], testing only: the tests that
// prove detection works), acting at the sweep's named points (sweep/fault_points.hpp). Only the
// rank the fault names acts; the others pass every point untouched.
//   alloc          its buffer allocation fails (an out-of-memory every rank agrees on)
//   never-join     it stays away from the arrival at the first size of at least SIZE
//   hang           it arrives, then stops inside the timed iterations
//   async-error    its transport is aborted under the peers (Backend::abort_transport), and it stays
//   slow           it doubles every timed iteration (the peers wait for it: the job is 2x slower)
//   wrong-element  it flips one element of its first checked output
#pragma once

#include <cstdint>

#include "core/sweep_config.hpp"
#include "faults/slowed_backend.hpp"
#include "runtime/world.hpp"
#include "sweep/fault_points.hpp"
#include "sweep/run_control.hpp"

namespace commsweep::faults {

class SweepFaults final : public FaultPoints {
 public:
  // FAULT as --fault gave it (Kind::None: none); RANK this process's; BACKEND and CONTROL the sweep's.
  SweepFaults(const Fault& fault, int rank, Backend& backend, RunControl& control);

  void before_allocation() override;
  void before_arrival(std::uint64_t bytes, const Phase& phase) override;
  void timed_iterations(std::uint64_t bytes, const Phase& phase) override;
  Backend& timing_backend(std::uint64_t bytes, Backend& backend) override;
  void checked_output(void* recv, std::size_t count, std::size_t element_bytes) override;

 private:
  bool due(Fault::Kind kind, std::uint64_t bytes) const;
  // The line the tests read ("commsweep: rank R: fault injection: WHAT PHASE").
  void announce(const char* what, const Phase& phase) const;

  Fault fault_;
  int rank_;
  Backend& backend_;
  RunControl& control_;
  SlowedBackend slowed_;  // slow: exactly 2x, spinning (a sleep's wake-up would add its own noise)
  bool flipped_ = false;  // wrong-element: once
};

}  // namespace commsweep::faults
