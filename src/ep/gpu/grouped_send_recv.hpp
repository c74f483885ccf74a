// The GPU exchanges' host-driven part over NCCL: every peer's piece of a send buffer and of a
// receive buffer moved by grouped ncclSend / ncclRecv (an alltoallv), and the host clock they
// are timed with.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "comm/nccl/nccl_backend.hpp"

namespace commsweep::ep {

// Per peer: how many units its piece has (0: none, skipped by both sides, who both know the
// counts) and where it starts, in units.
struct PeerPieces {
  std::vector<int> counts;
  std::vector<std::size_t> starts;
};
std::vector<std::size_t> exclusive_prefix(const std::vector<int>& counts);
// Pieces laid out back to back in peer order.
inline PeerPieces packed(const std::vector<int>& counts) { return {counts, exclusive_prefix(counts)}; }

// On the backend's communicator and stream; checked against the phase's deadline.
void grouped_send_recv(NcclBackend& backend, const void* send, const PeerPieces& sends, void* recv,
                       const PeerPieces& receives, std::size_t unit, const Phase& phase);

inline double elapsed_us(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace commsweep::ep
