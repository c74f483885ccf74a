// Which experts each token goes to, with its weights. Deterministic from (seed, rank), so any
// rank can compute any other rank's routing (the host reference needs them all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ep/ep_config.hpp"

namespace commsweep::ep {

struct Routing {
  int tokens = 0;
  int topk = 0;
  std::vector<std::int32_t> experts;  // tokens x topk, distinct within a token, in [0, experts)
  std::vector<float> weights;         // tokens x topk, > 0
};

struct RoutingParams {
  double skew = 1.0;
  int topk_groups = 0;      // > 0: experts grouped by node; a token picks its best groups first
  int ranks_per_node = 1;   // for topk_groups: node of rank r = r / ranks_per_node
  std::uint64_t seed = 0;
};

// randn: DeepEP's test generator: scores |randn| + 1 per (token, expert), the top-k scores
//        chosen, weights |randn|.
// uniform: top-k distinct experts drawn uniformly.
// balanced: token t takes experts (t * topk + j) % experts: every expert equally loaded.
// skewed: distinct experts drawn with probability proportional to 1 / (e + 1)^skew (hot
//         experts, the low numbers, overload their rank).
// Throws std::invalid_argument naming the setting when the case is impossible (topk > experts,
// experts not divisible by nranks, topk_groups larger than the nodes, ...).
Routing make_routing(const EpCase& c, const RoutingParams& p, int rank, int nranks);

// The file format (text, '#' starts a comment):
//   rank token expert_1 ... expert_k [weight_1 ... weight_k]
// one line per token of every rank (tokens 0..tokens-1), weights default to 1/k. Throws
// std::runtime_error naming the file and line on any error (missing token, duplicate, expert
// out of range, repeated expert in a token, wrong field count, non-positive weight, larger
// than kMaxRoutingFileBytes).
constexpr std::size_t kMaxRoutingFileBytes = std::size_t{256} << 20;  // ~5M token lines
std::vector<Routing> read_routing_file(const std::string& path, const EpCase& c, int nranks);

}  // namespace commsweep::ep
