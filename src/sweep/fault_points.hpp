// The named points of a collective sweep (and an EP sweep's check, pairs' rounds and nvlink's
// copies) where a planted fault may act.
// The sweeps call them and know no fault: the faults themselves live behind this seam, in faults/ (testing only,
// --fault); a sweep without one calls the defaults, which do nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "comm/backend.hpp"
#include "runtime/world.hpp"

namespace commsweep {

class FaultPoints {
 public:
  virtual ~FaultPoints() = default;
  // Before the buffers are allocated (a failed allocation throws from here as the backend's would).
  virtual void before_allocation() {}
  // Before the ranks' arrival at a size of BYTES (a rank that never comes stays here).
  virtual void before_arrival(std::uint64_t bytes, const Phase& phase) {
    (void)bytes;
    (void)phase;
  }
  // At the start of the timed iterations of a size of BYTES, every rank arrived (a hang, a
  // transport that breaks under the peers).
  virtual void timed_iterations(std::uint64_t bytes, const Phase& phase) {
    (void)bytes;
    (void)phase;
  }
  // The backend the timed iterations of a size of BYTES run on: BACKEND, or one that is slower.
  virtual Backend& timing_backend(std::uint64_t bytes, Backend& backend) {
    (void)bytes;
    return backend;
  }
  // After a check iteration wrote RECV (COUNT elements of ELEMENT_BYTES), before it is verified.
  virtual void checked_output(void* recv, std::size_t count, std::size_t element_bytes) {
    (void)recv;
    (void)count;
    (void)element_bytes;
  }
  // An output copied to the host (BYTES of DATA: an EP case's dispatched payload, its combined
  // tokens), before it is verified.
  virtual void host_output(void* data, std::size_t bytes) {
    (void)data;
    (void)bytes;
  }
  // Before pairs' round ROUND (0-based) on this rank, before its exchange (a rank that hangs
  // stays here).
  virtual void before_round(int round) { (void)round; }
  // How many copies a timed copy between the GPUs of world ranks SRC_RANK and DST_RANK makes
  // (nvlink's tests of one pair, either way): 1, more where a planted fault slows the pair.
  virtual int copies_per_timed_copy(int src_rank, int dst_rank) {
    (void)src_rank;
    (void)dst_rank;
    return 1;
  }
};

}  // namespace commsweep
