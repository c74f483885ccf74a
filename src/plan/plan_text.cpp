#include "plan/plan_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace commsweep::plan {
namespace {

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

std::string round_line(const Round& r, std::size_t index, double per_pair_bytes) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "# %6zu %7zu %12s  %s\n", index + 1, r.pairs.size(),
                bytes_text(static_cast<double>(r.pairs.size()) * per_pair_bytes).c_str(),
                r.label.empty() ? "round robin" : r.label.c_str());
  return buf;
}

}  // namespace

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

PlanCost plan_cost(const Plan& plan, const CostModel& model, const RoundShape& shape, int rails_per_node) {
  PlanCost c;
  c.round_s = round_seconds(model, shape);
  c.total_s = c.round_s * static_cast<double>(plan.rounds.size());
  std::size_t most = 0;
  for (const auto& r : plan.rounds) most = std::max(most, r.pairs.size());
  const int exchanges = shape.warmup + shape.iters + shape.check;
  c.bytes_per_round = static_cast<double>(most) * rails_per_node * 2.0 * static_cast<double>(shape.bytes) * exchanges;
  return c;
}

std::string render_plan(const Plan& plan, const Topology& t, const CostModel& model, const RoundShape& shape,
                        int rails_per_node) {
  std::ostringstream out;
  const std::uint64_t all = static_cast<std::uint64_t>(plan.nodes) * static_cast<std::uint64_t>(std::max(plan.nodes - 1, 0)) / 2;
  out << "# commsweep pairs --plan: " << plan.pattern << " over " << plan.nodes << " nodes x " << rails_per_node
      << " rails (no MPI: nothing is measured)\n";
  out << "# topology: " << t.source << "; leaves " << t.leaf_count() << ", blocks " << t.block_names.size() << "\n";
  for (const auto& note : t.notes) out << "# note: " << note << "\n";
  for (const auto& note : plan.notes) out << "# note: " << note << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "# %zu rounds (no plan of these pairs has fewer than %d), %llu pairs, %llu distinct: %.2f %% of the %llu node pairs%s\n",
                plan.rounds.size(), plan.lower_bound_rounds, static_cast<unsigned long long>(plan.pairs),
                static_cast<unsigned long long>(plan.distinct_pairs), 100 * plan.coverage(), static_cast<unsigned long long>(all),
                plan.promised_pairs > 0 ? (", every promised pair exactly once (" + std::to_string(plan.promised_pairs) + ")").c_str() : "");
  out << line;
  const int exchanges = shape.warmup + shape.iters + shape.check;
  const double per_pair = static_cast<double>(rails_per_node) * 2.0 * static_cast<double>(shape.bytes) * exchanges;
  out << "# per pair and round: " << rails_per_node << " rails x " << bytes_text(static_cast<double>(shape.bytes))
      << " each way x " << exchanges << " exchanges (-w " << shape.warmup << " -n " << shape.iters << " -c "
      << shape.check << ") = " << bytes_text(per_pair) << " on the wire\n";
  out << "#  round   pairs  bytes/round  tests\n";
  const std::size_t n = plan.rounds.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > 24 && i == 10) {
      out << "#    ... " << n - 15 << " rounds like these ...\n";
      i = n - 6;
      continue;
    }
    out << round_line(plan.rounds[i], i, per_pair);
  }
  const PlanCost cost = plan_cost(plan, model, shape, rails_per_node);
  out << "# cost model: " << model.source << "\n";
  // clock_text writes m:ss below an hour: the label says which, so that 1:29 is not read as 1 h 29.
  std::snprintf(line, sizeof line, "# predicted: %.3f s per round x %zu rounds = %s (%s), %s on the wire per round at most\n",
                cost.round_s, n, clock_text(cost.total_s).c_str(), cost.total_s < 3600 ? "m:ss" : "h:mm:ss",
                bytes_text(cost.bytes_per_round).c_str());
  out << line;
  return out.str();
}

}  // namespace commsweep::plan
