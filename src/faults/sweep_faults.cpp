#include "faults/sweep_faults.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "runtime/termination.hpp"

namespace commsweep::faults {

SweepFaults::SweepFaults(const Fault& fault, int rank, Backend& backend, RunControl& control)
    : fault_(fault), rank_(rank), backend_(backend), control_(control), slowed_(backend, 2, /*spin=*/true) {}

bool SweepFaults::due(Fault::Kind kind, std::uint64_t bytes) const {
  return fault_.kind == kind && fault_.rank == rank_ && bytes >= fault_.from_bytes;
}

void SweepFaults::announce(const char* what, const Phase& phase) const {
  std::fprintf(stderr, "commsweep: rank %d: fault injection: %s %s\n", rank_, what, phase.label.c_str());
  std::fflush(stderr);
}

void SweepFaults::before_allocation() {
  if (fault_.kind == Fault::Kind::Alloc && fault_.rank == rank_)
    throw std::runtime_error("fault injection (--fault alloc:" + std::to_string(rank_) + ")");
}

void SweepFaults::before_arrival(std::uint64_t bytes, const Phase& phase) {
  if (!due(Fault::Kind::NeverJoin, bytes)) return;
  announce("not joining", phase);
  const auto guard = control_.watch(phase);  // its own watchdog sees the phase it never ends
  stay_until_the_end();
}

void SweepFaults::timed_iterations(std::uint64_t bytes, const Phase& phase) {
  if (due(Fault::Kind::Hang, bytes)) {
    announce("hanging in", phase);
    stay_until_the_end();
  }
  if (due(Fault::Kind::AsyncError, bytes)) {
    announce("breaking the transport in", phase);
    backend_.abort_transport("asynchronous error injected by --fault async-error");
    // Stays, as a rank whose network failed would: the job must end through an error report.
    stay_until_the_end();
  }
}

Backend& SweepFaults::timing_backend(std::uint64_t bytes, Backend& backend) {
  return due(Fault::Kind::Slow, bytes) ? static_cast<Backend&>(slowed_) : backend;
}

void SweepFaults::checked_output(void* recv, std::size_t count, std::size_t element_bytes) {
  if (fault_.kind != Fault::Kind::WrongElement || fault_.rank != rank_ || flipped_ || count == 0) return;
  backend_.corrupt(recv, count / 2, element_bytes);
  flipped_ = true;
}

}  // namespace commsweep::faults
