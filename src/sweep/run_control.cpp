#include "sweep/run_control.hpp"

namespace commsweep {

void RunControl::arrive(const Phase& phase) {
  if (interrupted_) throw Interrupted{};
  // Every rank arrives before any collective is issued: a rank that never comes is named here
  // (World's stall protocol), and a stop requested on any rank is agreed by all.
  if (world_.sum(termination_requested() ? 1 : 0, phase) > 0) {
    interrupted_ = true;
    throw Interrupted{};
  }
}

}  // namespace commsweep
