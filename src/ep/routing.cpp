#include "ep/routing.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "core/text_file.hpp"
#include "ep/random.hpp"

namespace commsweep::ep {
namespace {

// Indices [0, n) ordered by score descending, ties to the lower index: a total order, so
// every standard library's sort gives the same result.
struct ByScore {
  const std::vector<double>* score;
  bool operator()(int a, int b) const {
    const double sa = (*score)[a];
    const double sb = (*score)[b];
    return sa != sb ? sa > sb : a < b;
  }
};

// The experts of node g (DeepEP's groups): those of ranks [g * rpn, (g + 1) * rpn).
struct Groups {
  int count = 0;
  int experts_per_node = 0;
  int experts = 0;
  int first(int g) const { return g * experts_per_node; }
  int end(int g) const { return std::min((g + 1) * experts_per_node, experts); }
};

Groups node_groups(const EpCase& c, const RoutingParams& p, int nranks) {
  Groups g;
  g.count = (nranks + p.ranks_per_node - 1) / p.ranks_per_node;
  g.experts_per_node = p.ranks_per_node * (c.experts / nranks);
  g.experts = c.experts;
  return g;
}

void check_groups(const EpCase& c, const RoutingParams& p, int nranks) {
  if (p.topk_groups < 0) {
    throw std::invalid_argument("--topk-groups " + std::to_string(p.topk_groups) +
                                " is negative");
  }
  if (p.topk_groups == 0) return;
  if (p.ranks_per_node < 1) {
    throw std::invalid_argument("ranks per node " + std::to_string(p.ranks_per_node) +
                                " is not positive");
  }
  const Groups g = node_groups(c, p, nranks);
  if (p.topk_groups > g.count) {
    throw std::invalid_argument("--topk-groups " + std::to_string(p.topk_groups) +
                                " is more than the " + std::to_string(g.count) + " nodes (" +
                                std::to_string(nranks) + " ranks, " +
                                std::to_string(p.ranks_per_node) + " a node)");
  }
  // The fewest experts the kept groups can hold: only the last node can be smaller.
  std::vector<int> sizes;
  for (int i = 0; i < g.count; ++i) sizes.push_back(g.end(i) - g.first(i));
  std::sort(sizes.begin(), sizes.end());
  const int fewest = std::accumulate(sizes.begin(), sizes.begin() + p.topk_groups, 0);
  if (fewest < c.topk) {
    throw std::invalid_argument("--topk-groups " + std::to_string(p.topk_groups) + " keeps " +
                                std::to_string(fewest) + " experts, fewer than --topk " +
                                std::to_string(c.topk));
  }
}

// DeepEP's test routing (tests/test_internode.py): scores |randn| + 1 per expert, optionally
// only the experts of the topk_groups nodes with the best maximum score, then the top k.
void route_randn(const EpCase& c, const RoutingParams& p, int nranks, TokenStream& s,
                 std::int32_t* experts_out, std::vector<double>& score,
                 std::vector<int>& order) {
  for (int e = 0; e < c.experts; ++e) score[e] = std::fabs(s.randn()) + 1.0;
  order.clear();
  if (p.topk_groups > 0) {
    const Groups g = node_groups(c, p, nranks);
    std::vector<double> group_score(g.count);
    for (int i = 0; i < g.count; ++i) {
      group_score[i] = *std::max_element(score.begin() + g.first(i), score.begin() + g.end(i));
    }
    std::vector<int> groups(g.count);
    std::iota(groups.begin(), groups.end(), 0);
    std::partial_sort(groups.begin(), groups.begin() + p.topk_groups, groups.end(),
                      ByScore{&group_score});
    std::sort(groups.begin(), groups.begin() + p.topk_groups);
    for (int k = 0; k < p.topk_groups; ++k) {
      for (int e = g.first(groups[k]); e < g.end(groups[k]); ++e) order.push_back(e);
    }
  } else {
    order.resize(c.experts);
    std::iota(order.begin(), order.end(), 0);
  }
  std::partial_sort(order.begin(), order.begin() + c.topk, order.end(), ByScore{&score});
  std::copy(order.begin(), order.begin() + c.topk, experts_out);
}

// Partial Fisher-Yates: the first k of a uniform random permutation.
void route_uniform(const EpCase& c, TokenStream& s, std::int32_t* experts_out,
                   std::vector<int>& perm) {
  perm.resize(c.experts);
  std::iota(perm.begin(), perm.end(), 0);
  for (int j = 0; j < c.topk; ++j) {
    const int pick = j + static_cast<int>(s.below(static_cast<std::uint32_t>(c.experts - j)));
    std::swap(perm[j], perm[pick]);
    experts_out[j] = perm[j];
  }
}

// Sequential weighted sampling without replacement. The draw is compared against a running
// sum (never target - w, which a compiler could fuse with the multiply into an fma).
void route_skewed(const EpCase& c, const std::vector<double>& weight, TokenStream& s,
                  std::int32_t* experts_out, std::vector<char>& taken) {
  taken.assign(c.experts, 0);
  double remaining = 0;
  for (double w : weight) remaining += w;
  for (int j = 0; j < c.topk; ++j) {
    const double target = s.uniform() * remaining;
    int pick = -1;
    int last_positive = -1;
    double cumulative = 0;
    for (int e = 0; e < c.experts && pick < 0; ++e) {
      if (taken[e]) continue;
      if (weight[e] > 0) last_positive = e;
      cumulative += weight[e];
      if (target < cumulative) pick = e;
    }
    // Rounding can leave target at the sum: the last expert with weight; all weights 0
    // (underflow at a huge skew): the hottest left.
    if (pick < 0) pick = last_positive;
    if (pick < 0) pick = static_cast<int>(std::find(taken.begin(), taken.end(), 0) - taken.begin());
    taken[pick] = 1;
    experts_out[j] = pick;
    remaining = std::max(remaining - weight[pick], 0.0);
  }
}

}  // namespace

// topk_groups restricts the randn routing only (it needs scores to rank nodes by); the other
// generators ignore it.
Routing make_routing(const EpCase& c, const RoutingParams& p, int rank, int nranks) {
  if (const std::string why = invalid(c, nranks); !why.empty()) throw std::invalid_argument(why);
  if (rank < 0 || rank >= nranks) {
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not one of the " +
                                std::to_string(nranks) + " ranks");
  }
  if (c.routing == RoutingKind::File) {
    throw std::invalid_argument("--routing file: the routing comes from read_routing_file");
  }
  if (c.routing == RoutingKind::Randn) check_groups(c, p, nranks);
  std::vector<double> skew_weight;
  if (c.routing == RoutingKind::Skewed) {
    if (!std::isfinite(p.skew)) throw std::invalid_argument("--skew is not a finite number");
    skew_weight.resize(c.experts);
    for (int e = 0; e < c.experts; ++e) skew_weight[e] = 1.0 / std::pow(e + 1.0, p.skew);
  }

  Routing r;
  r.tokens = c.tokens;
  r.topk = c.topk;
  r.experts.resize(static_cast<std::size_t>(c.tokens) * c.topk);
  r.weights.resize(r.experts.size());
  std::vector<double> score(c.experts);
  std::vector<int> scratch;
  std::vector<char> taken;
  for (int t = 0; t < c.tokens; ++t) {
    std::int32_t* experts = r.experts.data() + static_cast<std::size_t>(t) * c.topk;
    TokenStream choice = choice_stream(p.seed, rank, t);
    switch (c.routing) {
      case RoutingKind::Randn: route_randn(c, p, nranks, choice, experts, score, scratch); break;
      case RoutingKind::Uniform: route_uniform(c, choice, experts, scratch); break;
      case RoutingKind::Balanced:
        for (int j = 0; j < c.topk; ++j) {
          experts[j] = static_cast<std::int32_t>(
              (static_cast<std::int64_t>(t) * c.topk + j) % c.experts);
        }
        break;
      case RoutingKind::Skewed: route_skewed(c, skew_weight, choice, experts, taken); break;
      case RoutingKind::File: break;
    }
    TokenStream weights = weight_stream(p.seed, rank, t);
    for (int j = 0; j < c.topk; ++j) {
      r.weights[static_cast<std::size_t>(t) * c.topk + j] = routing_weight(weights);
    }
  }
  return r;
}

// ---- The routing file ------------------------------------------------------------------
//
// Text, one line per token of every rank; '#' starts a comment to the end of the line; blank
// lines are skipped; fields are separated by spaces or tabs:
//
//   # rank token expert_1 ... expert_k [weight_1 ... weight_k]
//   0 0 3 17
//   0 1 5 2 0.25 0.75
//
// rank in [0, nranks), token in [0, tokens), k = --topk experts in [0, experts), distinct
// within the line, in slot order; the weights, when given, all k of them, finite and > 0
// (default 1/k). Every (rank, token) appears exactly once. Numbers are parsed strictly
// (std::from_chars: no locale, no trailing characters).

namespace {

[[noreturn]] void file_error(const std::string& path, int line, const std::string& what) {
  throw std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string_view> fields_of(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r')) ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t' && text[pos] != '\r') ++pos;
    if (pos > start) fields.push_back(text.substr(start, pos - start));
  }
  return fields;
}

bool parse_int(std::string_view s, long long& out) {
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool parse_float(std::string_view s, double& out) {
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

long long int_field(const std::string& path, int line, std::string_view field, const char* what,
                    long long limit) {
  long long v = 0;
  if (!parse_int(field, v)) {
    file_error(path, line, std::string(what) + " '" + std::string(field) + "' is not an integer");
  }
  if (v < 0 || v >= limit) {
    file_error(path, line, std::string(what) + " " + std::to_string(v) + " is not in [0, " +
                               std::to_string(limit) + ")");
  }
  return v;
}

}  // namespace

std::vector<Routing> read_routing_file(const std::string& path, const EpCase& c, int nranks) {
  if (const std::string why = invalid(c, nranks); !why.empty()) throw std::invalid_argument(why);
  // Bounded: a device or a runaway file would otherwise grow one line until the process dies.
  std::istringstream in(read_bounded_file(path, kMaxRoutingFileBytes));

  const int k = c.topk;
  std::vector<Routing> all(nranks);
  for (Routing& r : all) {
    r.tokens = c.tokens;
    r.topk = k;
    r.experts.assign(static_cast<std::size_t>(c.tokens) * k, -1);
    r.weights.assign(r.experts.size(), 0.0f);
  }
  // The line that gave each (rank, token), 0 while none has.
  std::vector<int> seen_at(static_cast<std::size_t>(nranks) * c.tokens, 0);

  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::string_view content(text);
    if (const auto hash = content.find('#'); hash != std::string_view::npos) {
      content = content.substr(0, hash);
    }
    const auto fields = fields_of(content);
    if (fields.empty()) continue;
    const int n = static_cast<int>(fields.size());
    if (n != 2 + k && n != 2 + 2 * k) {
      file_error(path, line, std::to_string(n) + " fields, expected " + std::to_string(2 + k) +
                                 " or " + std::to_string(2 + 2 * k) + " (rank token " +
                                 std::to_string(k) + " experts [" + std::to_string(k) +
                                 " weights])");
    }
    const int rank = static_cast<int>(int_field(path, line, fields[0], "rank", nranks));
    const int token = static_cast<int>(int_field(path, line, fields[1], "token", c.tokens));
    int& seen = seen_at[static_cast<std::size_t>(rank) * c.tokens + token];
    if (seen != 0) {
      file_error(path, line, "rank " + std::to_string(rank) + " token " + std::to_string(token) +
                                 " again (first on line " + std::to_string(seen) + ")");
    }
    seen = line;
    Routing& r = all[rank];
    const std::size_t base = static_cast<std::size_t>(token) * k;
    for (int j = 0; j < k; ++j) {
      const auto e = static_cast<std::int32_t>(
          int_field(path, line, fields[2 + j], "expert", c.experts));
      for (int i = 0; i < j; ++i) {
        if (r.experts[base + i] == e) {
          file_error(path, line, "expert " + std::to_string(e) + " twice in one token");
        }
      }
      r.experts[base + j] = e;
    }
    for (int j = 0; j < k; ++j) {
      double w = 1.0 / k;
      if (n == 2 + 2 * k) {
        const std::string_view field = fields[2 + k + j];
        if (!parse_float(field, w)) {
          file_error(path, line, "weight '" + std::string(field) + "' is not a number");
        }
        const float as_float = static_cast<float>(w);
        if (!(as_float > 0) || !std::isfinite(as_float)) {
          file_error(path, line,
                     "weight " + std::string(field) + " is not a positive finite float");
        }
      }
      r.weights[base + j] = static_cast<float>(w);
    }
  }
  if (in.bad()) throw std::runtime_error(path + ": read error: " + std::strerror(errno));
  // A missing token has no line of its own: the error names the end of the file.
  for (int rank = 0; rank < nranks; ++rank) {
    for (int token = 0; token < c.tokens; ++token) {
      if (seen_at[static_cast<std::size_t>(rank) * c.tokens + token] == 0) {
        file_error(path, line + 1,
                   "end of file: no line for rank " + std::to_string(rank) + " token " +
                       std::to_string(token) + " (every rank's tokens 0.." +
                       std::to_string(c.tokens - 1) + " need one)");
      }
    }
  }
  return all;
}

}  // namespace commsweep::ep
