// One round of `commsweep pairs` on this rank: exchange with the partner the schedule gives
// (both directions at once, through the backend's sendrecv: MPI_Isend/Irecv on host buffers,
// or grouped ncclSend/ncclRecv on device buffers), timed after a barrier of every rank, then
// the received data verified bit-exact against the partner's pattern.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "comm/backend.hpp"
#include "runtime/world.hpp"
#include "sweep/run_control.hpp"

namespace commsweep::pairs {

struct ExchangeConfig {
  std::uint64_t count = 0;  // elements of `type`, each way
  DataType type = DataType::Float32;
  int iters = 20;
  int warmup = 5;
  int check = 1;  // verifications per round; 0: none
  double timeout_s = 300;
  std::uint64_t seed = 0x636f6d6d73776570ull;
};

// What this rank did in one round.
struct RankRound {
  int partner = -1;      // -1: it sat out
  double time_us = 0;    // per exchange
  std::uint64_t wrong = 0;
};

class PairExchange {
 public:
  // CONTROL watches its phases and stops it where the ranks agree to (sweep/run_control.hpp).
  PairExchange(World& world, Backend& backend, RunControl& control, const ExchangeConfig& config);

  // Every rank calls it, also those without a partner (they join the barriers). Throws
  // Interrupted (RunControl::arrive) when the ranks agree to stop on SIGTERM / SIGINT.
  RankRound run_round(int partner, const std::string& label);

 private:
  Phase phase(const std::string& label, const char* step) const;
  CollectiveArgs exchange_args(int partner);
  std::uint64_t verify(int partner, const std::string& label);

  World& world_;
  Backend& backend_;
  RunControl& control_;
  ExchangeConfig config_;
  std::unique_ptr<Buffer> send_;
  std::unique_ptr<Buffer> recv_;
};

}  // namespace commsweep::pairs
