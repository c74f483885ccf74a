// The MoE routing generators and the routing file (src/ep/routing.hpp), and the EP case's
// validity and sweep order (src/ep/ep_config.hpp): deterministic, distinct experts in range,
// each generator's load shape, and errors that name the setting or the file's line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ep/ep_config.hpp"
#include "ep/random.hpp"
#include "ep/routing.hpp"

namespace commsweep::ep {
namespace {

constexpr std::uint64_t kRoutingSeed = 1234;

EpCase small_case(RoutingKind routing, int tokens, int topk, int experts) {
  EpCase c;
  c.tokens = tokens;
  c.hidden = 256;
  c.topk = topk;
  c.experts = experts;
  c.routing = routing;
  return c;
}

RoutingParams params(std::uint64_t seed = kRoutingSeed) {
  RoutingParams p;
  p.seed = seed;
  return p;
}

// Shape, distinct experts in range, positive weights.
void expect_well_formed(const Routing& r, const EpCase& c) {
  ASSERT_EQ(r.tokens, c.tokens);
  ASSERT_EQ(r.topk, c.topk);
  ASSERT_EQ(r.experts.size(), static_cast<std::size_t>(c.tokens) * c.topk);
  ASSERT_EQ(r.weights.size(), r.experts.size());
  for (int t = 0; t < c.tokens; ++t) {
    std::set<int> seen;
    for (int j = 0; j < c.topk; ++j) {
      const int e = r.experts[t * c.topk + j];
      ASSERT_GE(e, 0) << "token " << t;
      ASSERT_LT(e, c.experts) << "token " << t;
      ASSERT_TRUE(seen.insert(e).second) << "token " << t << " repeats expert " << e;
      ASSERT_GT(r.weights[t * c.topk + j], 0.0f) << "token " << t;
    }
  }
}

std::vector<int> loads(const Routing& r, int experts) {
  std::vector<int> load(experts, 0);
  for (int e : r.experts) ++load[e];
  return load;
}

const RoutingKind kGenerated[] = {RoutingKind::Randn, RoutingKind::Uniform, RoutingKind::Balanced,
                                  RoutingKind::Skewed};

TEST(EpNames, RoutingAndDtype) {
  EXPECT_EQ(name_of(RoutingKind::Randn), "randn");
  EXPECT_EQ(name_of(RoutingKind::Uniform), "uniform");
  EXPECT_EQ(name_of(RoutingKind::Balanced), "balanced");
  EXPECT_EQ(name_of(RoutingKind::Skewed), "skewed");
  EXPECT_EQ(name_of(RoutingKind::File), "file");
  EXPECT_EQ(name_of(EpDtype::Bf16), "bf16");
  EXPECT_EQ(name_of(EpDtype::Fp8), "fp8");
}

TEST(EpInvalid, DefaultsAndEdgeCasesAreValid) {
  EXPECT_EQ(invalid(EpCase{}, 8), "");
  EpCase c;
  c.tokens = 0;  // a rank that sends nothing
  EXPECT_EQ(invalid(c, 8), "");
  c.topk = c.experts;
  EXPECT_EQ(invalid(c, 8), "");
  c.hidden = 136;  // a multiple of 8 is enough for bf16
  EXPECT_EQ(invalid(c, 8), "");
}

TEST(EpInvalid, MessagesNameTheSetting) {
  EpCase c;
  c.experts = 250;
  EXPECT_EQ(invalid(c, 4), "--experts 250 is not divisible by the 4 ranks");
  c = EpCase{};
  c.tokens = -1;
  EXPECT_NE(invalid(c, 4).find("--tokens -1"), std::string::npos) << invalid(c, 4);
  c = EpCase{};
  c.hidden = 0;
  EXPECT_NE(invalid(c, 4).find("--hidden 0"), std::string::npos) << invalid(c, 4);
  c.hidden = 100;
  EXPECT_NE(invalid(c, 4).find("--hidden 100 is not a multiple of 8"), std::string::npos);
  c.hidden = 136;
  c.dtype = EpDtype::Fp8;
  EXPECT_NE(invalid(c, 4).find("--hidden 136 is not a multiple of 128"), std::string::npos)
      << invalid(c, 4);
  EXPECT_NE(invalid(c, 4).find("fp8"), std::string::npos);
  c = EpCase{};
  c.topk = 0;
  EXPECT_NE(invalid(c, 4).find("--topk 0"), std::string::npos) << invalid(c, 4);
  c.topk = 9;
  c.experts = 8;
  EXPECT_NE(invalid(c, 4).find("--topk 9 is more than the 8 experts"), std::string::npos)
      << invalid(c, 4);
  c = EpCase{};
  c.experts = 0;
  EXPECT_NE(invalid(c, 4).find("--experts 0"), std::string::npos) << invalid(c, 4);
}

TEST(EpExpand, OrderIsRoutingDtypeExpertsTopkHiddenTokens) {
  EpConfig config;
  config.routings = {RoutingKind::Randn, RoutingKind::Balanced};
  config.dtypes = {EpDtype::Bf16, EpDtype::Fp8};
  config.experts = {64, 128};
  config.topk = {4, 8};
  config.hidden = {2048, 7168};
  config.tokens = {1, 2, 3};
  const auto cases = expand(config);
  ASSERT_EQ(cases.size(), 2u * 2 * 2 * 2 * 2 * 3);
  std::size_t i = 0;
  for (auto routing : config.routings)
    for (auto dtype : config.dtypes)
      for (int experts : config.experts)
        for (int topk : config.topk)
          for (int hidden : config.hidden)
            for (int tokens : config.tokens) {
              const EpCase& c = cases[i++];
              ASSERT_EQ(c.routing, routing);
              ASSERT_EQ(c.dtype, dtype);
              ASSERT_EQ(c.experts, experts);
              ASSERT_EQ(c.topk, topk);
              ASSERT_EQ(c.hidden, hidden);
              ASSERT_EQ(c.tokens, tokens);
            }
  EXPECT_EQ(cases[1].tokens, 2);  // tokens innermost
  EXPECT_EQ(cases[3].hidden, 7168);
}

TEST(EpRouting, WellFormedForEveryGenerator) {
  for (RoutingKind kind : kGenerated) {
    for (int topk : {1, 3, 8, 16}) {
      const EpCase c = small_case(kind, 200, topk, 16);
      for (int rank = 0; rank < 4; ++rank) {
        SCOPED_TRACE(std::string(name_of(kind)) + " topk " + std::to_string(topk));
        expect_well_formed(make_routing(c, params(), rank, 4), c);
      }
    }
  }
}

TEST(EpRouting, DeterministicFromSeedAndRank) {
  for (RoutingKind kind : kGenerated) {
    const EpCase c = small_case(kind, 64, 4, 32);
    const Routing a = make_routing(c, params(), 1, 4);
    const Routing b = make_routing(c, params(), 1, 4);
    EXPECT_EQ(a.experts, b.experts) << name_of(kind);
    EXPECT_EQ(a.weights, b.weights) << name_of(kind);
    EXPECT_NE(a.weights, make_routing(c, params(), 2, 4).weights) << name_of(kind);
    EXPECT_NE(a.weights, make_routing(c, params(kRoutingSeed + 1), 1, 4).weights) << name_of(kind);
    if (kind != RoutingKind::Balanced) {
      EXPECT_NE(a.experts, make_routing(c, params(), 2, 4).experts) << name_of(kind);
      EXPECT_NE(a.experts, make_routing(c, params(kRoutingSeed + 1), 1, 4).experts) << name_of(kind);
    }
    // A token's routing does not depend on how many tokens the case has.
    const Routing longer = make_routing(small_case(kind, 100, 4, 32), params(), 1, 4);
    EXPECT_TRUE(std::equal(a.experts.begin(), a.experts.end(), longer.experts.begin()));
    EXPECT_TRUE(std::equal(a.weights.begin(), a.weights.end(), longer.weights.begin()));
  }
}

TEST(EpRouting, ZeroTokensGiveAnEmptyRouting) {
  const Routing r = make_routing(small_case(RoutingKind::Randn, 0, 4, 8), params(), 0, 2);
  EXPECT_EQ(r.tokens, 0);
  EXPECT_TRUE(r.experts.empty());
  EXPECT_TRUE(r.weights.empty());
}

TEST(EpRouting, BalancedLoadsEveryExpertEqually) {
  const EpCase c = small_case(RoutingKind::Balanced, 64, 4, 16);
  const Routing r = make_routing(c, params(), 3, 4);
  EXPECT_EQ(loads(r, 16), std::vector<int>(16, 64 * 4 / 16));
  EXPECT_EQ(std::vector<int>(r.experts.begin() + 12, r.experts.begin() + 16),
            (std::vector<int>{12, 13, 14, 15}));  // token 3
  EXPECT_EQ(std::vector<int>(r.experts.begin() + 16, r.experts.begin() + 20),
            (std::vector<int>{0, 1, 2, 3}));  // token 4 wraps
}

TEST(EpRouting, UniformSpreadsTheLoad) {
  const EpCase c = small_case(RoutingKind::Uniform, 4000, 4, 16);
  const auto load = loads(make_routing(c, params(), 0, 4), 16);
  for (int e = 0; e < 16; ++e) {
    EXPECT_NEAR(load[e], 1000, 150) << "expert " << e;  // mean 1000, sd ~27
  }
}

TEST(EpRouting, SkewedMakesLowExpertsHot) {
  const EpCase c = small_case(RoutingKind::Skewed, 4000, 4, 32);
  RoutingParams p = params();
  p.skew = 1.0;
  const auto load = loads(make_routing(c, p, 0, 4), 32);
  EXPECT_EQ(std::max_element(load.begin(), load.end()) - load.begin(), 0);
  EXPECT_GT(load[0], 2 * load[3]) << "weight 1 against 1/4";
  // Decreasing on average: each group of 8 experts carries less than the one before.
  int previous = 1 << 30;
  for (int group = 0; group < 4; ++group) {
    const int sum = std::accumulate(load.begin() + 8 * group, load.begin() + 8 * group + 8, 0);
    EXPECT_LT(sum, previous) << "group " << group;
    previous = sum;
  }
  // No skew: no expert stands out.
  p.skew = 0.0;
  const auto flat = loads(make_routing(c, p, 0, 4), 32);
  for (int e = 0; e < 32; ++e) EXPECT_NEAR(flat[e], 500, 100) << "expert " << e;
}

TEST(EpRouting, SkewedDoesNotHangAtAHugeSkew) {
  RoutingParams p = params();
  p.skew = 1e6;  // every weight but expert 0's underflows to 0
  const EpCase c = small_case(RoutingKind::Skewed, 10, 8, 8);
  const Routing r = make_routing(c, p, 0, 1);
  expect_well_formed(r, c);
  for (int t = 0; t < 10; ++t) EXPECT_EQ(r.experts[t * 8], 0);
}

// DeepEP's generator by hand: the scores are |randn| + 1 from the token's choice stream in
// expert order; the chosen experts are the top k, highest first; the weights |randn| from the
// weight stream.
TEST(EpRouting, RandnTakesTheTopScoresHighestFirst) {
  const EpCase c = small_case(RoutingKind::Randn, 50, 5, 24);
  const int rank = 2;
  const Routing r = make_routing(c, params(), rank, 4);
  for (int t = 0; t < c.tokens; ++t) {
    TokenStream s = choice_stream(kRoutingSeed, rank, t);
    std::vector<double> score(c.experts);
    for (double& x : score) x = std::fabs(s.randn()) + 1.0;
    std::vector<int> order(c.experts);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return score[a] > score[b]; });
    TokenStream w = weight_stream(kRoutingSeed, rank, t);
    for (int j = 0; j < c.topk; ++j) {
      ASSERT_EQ(r.experts[t * c.topk + j], order[j]) << "token " << t << " slot " << j;
      ASSERT_EQ(r.weights[t * c.topk + j], routing_weight(w)) << "token " << t << " slot " << j;
      if (j > 0) {
        ASSERT_GT(score[order[j - 1]], score[order[j]]);
      }
    }
  }
}

TEST(EpRouting, RandnIsStandardNormalAndExact) {
  TokenStream s = choice_stream(99, 0, 0);
  double sum = 0, sum2 = 0, sum_abs = 0;
  constexpr int kN = 200000;
  for (int i = 0; i < kN; ++i) {
    const double x = s.randn();
    ASSERT_LE(std::fabs(x), 6.0);
    sum += x;
    sum2 += x * x;
    sum_abs += std::fabs(x);
  }
  EXPECT_NEAR(sum / kN, 0.0, 0.01);
  EXPECT_NEAR(sum2 / kN, 1.0, 0.01);
  EXPECT_NEAR(sum_abs / kN, 0.7979, 0.01);  // E|x| = sqrt(2 / pi): the weights' mean
  // Fixed bits: a change of the generator changes every routing; this catches it.
  TokenStream again = choice_stream(99, 0, 0);
  TokenStream fresh = choice_stream(99, 0, 0);
  EXPECT_EQ(again.randn(), fresh.randn());
  EXPECT_EQ(choice_stream(99, 0, 0).next_u64(), pattern::hash(99 ^ kChoiceSalt, 0, 0));
  EXPECT_EQ(choice_stream(99, 1, 7).next_u64(), pattern::hash(99 ^ kChoiceSalt, 1, 7ull << 32));
}

int node_count(const Routing& r, int t, int experts_per_node) {
  std::set<int> nodes;
  for (int j = 0; j < r.topk; ++j) nodes.insert(r.experts[t * r.topk + j] / experts_per_node);
  return static_cast<int>(nodes.size());
}

TEST(EpRouting, TopkGroupsLimitATokensNodes) {
  // 8 ranks, 2 a node: 4 nodes of 8 experts.
  const EpCase c = small_case(RoutingKind::Randn, 300, 6, 32);
  RoutingParams p = params();
  p.ranks_per_node = 2;
  int spread_without = 0;
  const Routing free = make_routing(c, p, 5, 8);
  for (int t = 0; t < c.tokens; ++t) {
    spread_without = std::max(spread_without, node_count(free, t, 8));
  }
  EXPECT_GT(spread_without, 2) << "the test needs tokens that spread without groups";
  p.topk_groups = 2;
  const Routing r = make_routing(c, p, 5, 8);
  expect_well_formed(r, c);
  for (int t = 0; t < c.tokens; ++t) {
    ASSERT_LE(node_count(r, t, 8), 2) << "token " << t;
    // The kept nodes are those with the best maximum score.
    TokenStream s = choice_stream(kRoutingSeed, 5, t);
    std::vector<double> score(c.experts);
    for (double& x : score) x = std::fabs(s.randn()) + 1.0;
    std::vector<double> best(4, 0.0);
    for (int e = 0; e < c.experts; ++e) best[e / 8] = std::max(best[e / 8], score[e]);
    std::vector<double> sorted = best;
    std::sort(sorted.rbegin(), sorted.rend());
    for (int j = 0; j < c.topk; ++j) {
      ASSERT_GE(best[r.experts[t * c.topk + j] / 8], sorted[1]) << "token " << t;
    }
  }
  p.topk_groups = 1;
  const Routing one = make_routing(c, p, 5, 8);
  for (int t = 0; t < c.tokens; ++t) ASSERT_EQ(node_count(one, t, 8), 1) << "token " << t;
}

template <class Run>
std::string invalid_argument_of(Run&& run) {
  try {
    run();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument)";
}

TEST(EpRouting, ImpossibleCasesThrowNamingTheSetting) {
  RoutingParams p = params();
  p.ranks_per_node = 2;
  p.topk_groups = 5;
  const EpCase c = small_case(RoutingKind::Randn, 10, 6, 32);
  EXPECT_NE(invalid_argument_of([&] { make_routing(c, p, 0, 8); })
                .find("--topk-groups 5 is more than the 4 nodes"),
            std::string::npos);
  p.topk_groups = 1;  // one node holds 8 experts
  const EpCase nine = small_case(RoutingKind::Randn, 10, 9, 32);
  EXPECT_NE(invalid_argument_of([&] { make_routing(nine, p, 0, 8); }).find("fewer than --topk 9"),
            std::string::npos);
  // 6 ranks, 4 a node: nodes of 8 and 4 experts; one group may hold only 4.
  p.ranks_per_node = 4;
  const EpCase ragged = small_case(RoutingKind::Randn, 10, 5, 12);
  EXPECT_NE(invalid_argument_of([&] { make_routing(ragged, p, 0, 6); }).find("keeps 4 experts"),
            std::string::npos);
  p.topk_groups = 2;
  expect_well_formed(make_routing(ragged, p, 0, 6), ragged);

  const auto message = [](const EpCase& c, int rank) {
    return invalid_argument_of([&] { make_routing(c, params(), rank, 4); });
  };
  EXPECT_EQ(message(small_case(RoutingKind::Uniform, 4, 2, 250), 0),
            "--experts 250 is not divisible by the 4 ranks");
  EXPECT_NE(message(small_case(RoutingKind::Uniform, 4, 9, 8), 0).find("--topk 9"),
            std::string::npos);
  EXPECT_NE(message(small_case(RoutingKind::Uniform, 4, 2, 8), 4).find("rank 4"),
            std::string::npos);
  EXPECT_NE(message(small_case(RoutingKind::File, 4, 2, 8), 0).find("file"), std::string::npos);
}

// ---- The routing file ----

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "commsweep_ep_" + name + ".txt";
  std::ofstream(path) << text;
  return path;
}

TEST(EpRoutingFile, ReadsAValidFile) {
  const std::string path = write_file("valid",
                                      "# rank token experts [weights]\n"
                                      "0 0 3 1\n"
                                      "\n"
                                      "0 1\t2 0   0.25 0.75   # weights given\n"
                                      "   # an indented comment\n"
                                      "1 1 0 3 1e-3 2\n"
                                      "1 0 1 2\r\n");
  const EpCase c = small_case(RoutingKind::File, 2, 2, 4);
  const auto all = read_routing_file(path, c, 2);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].experts, (std::vector<std::int32_t>{3, 1, 2, 0}));
  EXPECT_EQ(all[0].weights, (std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f}));
  EXPECT_EQ(all[1].experts, (std::vector<std::int32_t>{1, 2, 0, 3}));
  EXPECT_EQ(all[1].weights, (std::vector<float>{0.5f, 0.5f, 1e-3f, 2.0f}));
  for (const Routing& r : all) expect_well_formed(r, c);
}

// The error names the file and the line, and says what is wrong.
void expect_file_error(const std::string& name, const std::string& text, int line,
                       const std::string& what) {
  const std::string path = write_file(name, text);
  const EpCase c = small_case(RoutingKind::File, 2, 2, 4);
  try {
    read_routing_file(path, c, 2);
    ADD_FAILURE() << name << ": no error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    const std::string where = path + ":" + std::to_string(line) + ": ";
    EXPECT_EQ(message.rfind(where, 0), 0u) << name << ": " << message;
    EXPECT_NE(message.find(what), std::string::npos) << name << ": " << message;
  }
}

// Three good lines for rank 0 token 0, rank 0 token 1 and rank 1 token 0; each case adds or
// breaks one.
const std::string kGood = "0 0 0 1\n0 1 2 3\n1 0 1 3\n";

TEST(EpRoutingFile, EveryErrorNamesItsLine) {
  expect_file_error("fields", kGood + "1 1 0\n", 4, "3 fields, expected 4 or 6");
  expect_file_error("fields5", "# header\n" + kGood + "1 1 0 1 0.5\n", 5, "5 fields");
  expect_file_error("rank", kGood + "2 1 0 1\n", 4, "rank 2 is not in [0, 2)");
  expect_file_error("negative_rank", kGood + "-1 1 0 1\n", 4, "rank -1");
  expect_file_error("token", kGood + "1 2 0 1\n", 4, "token 2 is not in [0, 2)");
  expect_file_error("not_integer", kGood + "1 1 0 x1\n", 4, "expert 'x1' is not an integer");
  expect_file_error("trailing", kGood + "1 1 0 1.0\n", 4, "expert '1.0' is not an integer");
  expect_file_error("expert", kGood + "1 1 0 4\n", 4, "expert 4 is not in [0, 4)");
  expect_file_error("repeated", kGood + "1 1 3 3\n", 4, "expert 3 twice");
  expect_file_error("duplicate", kGood + "0 1 0 1\n1 1 0 1\n", 4,
                    "rank 0 token 1 again (first on line 2)");
  expect_file_error("zero_weight", kGood + "1 1 0 1 0.5 0\n", 4, "weight 0 is not a positive");
  expect_file_error("negative_weight", kGood + "1 1 0 1 -1 1\n", 4, "weight -1");
  expect_file_error("nan_weight", kGood + "1 1 0 1 nan 1\n", 4, "weight nan");
  expect_file_error("inf_weight", kGood + "1 1 0 1 1 inf\n", 4, "weight inf");
  expect_file_error("huge_weight", kGood + "1 1 0 1 1 1e300\n", 4, "weight 1e300");
  expect_file_error("bad_weight", kGood + "1 1 0 1 0.5x 1\n", 4, "weight '0.5x' is not a number");
  expect_file_error("missing", "# only three tokens\n" + kGood, 5, "no line for rank 1 token 1");
  expect_file_error("empty", "", 1, "no line for rank 0 token 0");
}

TEST(EpRoutingFile, MissingFileAndImpossibleCase) {
  const EpCase c = small_case(RoutingKind::File, 2, 2, 4);
  const std::string path = ::testing::TempDir() + "commsweep_ep_does_not_exist.txt";
  try {
    read_routing_file(path, c, 2);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot read"), std::string::npos) << e.what();
  }
  const EpCase uneven = small_case(RoutingKind::File, 2, 2, 3);  // 3 experts on 2 ranks
  EXPECT_THROW(read_routing_file(write_file("case", kGood), uneven, 2), std::invalid_argument);
}

}  // namespace
}  // namespace commsweep::ep
