// What a plan costs in wall time: per round, every pair's exchanges run at once, so a round
// lasts as long as its slowest pair's -w warm-up + -n timed + -c checked exchanges, plus a
// fixed overhead (the barriers, the gather of every rank's figures to rank 0, the data fill and
// the verification). An exchange of B bytes each way takes latency + B / rail bandwidth.
//   round_s = overhead_s + (warmup + iters + check) * (latency_us * 1e-6 + B / (rail_gbps * 1e9))
// The figures are fitted to the rounds of a pairs results file (--cost-from FILE: the median
// round's slowest rail and its measured wall time), or the defaults below, which stand for one
// 400 Gb/s NIC per GPU (50 GB/s line rate; NCCL's send/recv reaches about 90 % of it).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace commsweep::plan {

struct CostModel {
  double rail_gbps = 45;      // each way, per rail, with every rail of the pair loaded
  double latency_us = 20;     // per exchange
  double overhead_s = 0.05;   // per round
  std::string source = "default: 45 GB/s per rail each way, 20 us per exchange, 0.05 s per round";
};

struct RoundShape {
  std::uint64_t bytes = 0;  // each way, per rail
  int warmup = 5;
  int iters = 20;
  int check = 1;
};

double exchange_seconds(const CostModel& model, std::uint64_t bytes);
double round_seconds(const CostModel& model, const RoundShape& shape);

// Fitted to a commsweep.pairs document (schema 1 or 2); throws std::invalid_argument naming
// what the document lacks. `source` names the file in the model's description.
CostModel fit_cost_model(const nlohmann::json& pairs_document, const std::string& source);

}  // namespace commsweep::plan
