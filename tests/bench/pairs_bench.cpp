// Memory and time of `commsweep pairs`' planner and analysis at scale (issue 18): a benchmark,
// not a test (ctest runs it once at a tiny size, to keep it building and working).
//   pairs_bench [--nodes N] [--rails R] [--per-leaf K]
// Each case runs in a child process of its own, so that its peak resident memory (getrusage's
// ru_maxrss) is its own: plan (every pattern), analysis (outlier rule, the adaptive localisation
// on every pair) and the JSON document (full and sparse) of a synthetic all-pairs run with one
// planted slow node.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"
#include "plan/adaptive.hpp"
#include "plan/planners.hpp"

namespace {

using namespace commsweep;

struct Config {
  int nodes = 4096;
  int rails = 8;
  int per_leaf = 32;
};

double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // KiB on Linux
}

// Runs `body` in a child: prints its name, wall time and peak memory.
void run_case(const char* name, const std::function<std::string()>& body) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    const auto start = std::chrono::steady_clock::now();
    const std::string detail = body();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-34s %9.3f s %9.1f MiB  %s\n", name, s, peak_mib(), detail.c_str());
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::printf("%-34s FAILED (status %d)\n", name, status);
}

// An all-pairs run measured on a healthy fabric at 40 GB/s per rail, node 7 at 10.
pairs::PairsRun synthetic_run(const Config& c) {
  pairs::PairsRun run;
  run.settings = {std::uint64_t{64} << 20, std::uint64_t{16} << 20, "float", 20, 5, 1, 0.8};
  run.topology = plan::synthetic_topology(c.nodes, c.per_leaf, 8);
  for (int n = 0; n < c.nodes; ++n) {
    pairs::Node node{"node" + std::to_string(n), {}, {}};
    for (int k = 0; k < c.rails; ++k) node.ranks.push_back(n * c.rails + k), node.pci_bus_ids.push_back("0000:19:00.0");
    run.nodes.push_back(std::move(node));
  }
  run.rounds = plan::round_robin(c.nodes);
  run.planned_rounds = static_cast<int>(run.rounds.size());
  std::size_t total = 0;
  for (const auto& r : run.rounds) total += r.pairs.size();
  run.pairs.reserve(total);
  for (std::size_t r = 0; r < run.rounds.size(); ++r) {
    for (const auto& p : run.rounds[r].pairs) {
      pairs::PairMeasurement m{static_cast<int>(r), p.a, p.b, {}};
      for (int k = 0; k < c.rails; ++k) {
        const double gbps = (p.a == 7 || p.b == 7) ? 10 : 40 + (p.a * 31 + p.b * 17 + k) % 7 * 0.1;
        const double us = static_cast<double>(run.settings.bytes) / gbps / 1e3;
        m.rails.push_back({k, p.a * c.rails + k, p.b * c.rails + k, us, us, us, gbps, 0});
      }
      run.pairs.push_back(std::move(m));
    }
    run.round_wall_s.push_back(0.1);
  }
  return run;
}

std::string plan_case(const Config& c, const char* pattern) {
  const plan::Topology t = plan::synthetic_topology(c.nodes, c.per_leaf, 8);
  const plan::Plan p = plan::make_plan(plan::parse_pattern(pattern), t);
  return std::to_string(p.rounds.size()) + " rounds, " + std::to_string(p.pairs) + " pairs";
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (flag == "--nodes") c.nodes = v;
    else if (flag == "--rails") c.rails = v;
    else if (flag == "--per-leaf") c.per_leaf = v;
    else {
      std::fprintf(stderr, "usage: pairs_bench [--nodes N] [--rails R] [--per-leaf K]\n");
      return 2;
    }
  }
  if (c.nodes < 2 || c.rails < 1 || c.per_leaf < 1) {
    std::fprintf(stderr, "pairs_bench: --nodes >= 2, --rails >= 1, --per-leaf >= 1\n");
    return 2;
  }
  std::printf("# pairs_bench: %d nodes x %d rails, leaves of %d, 8 leaves per block\n", c.nodes, c.rails, c.per_leaf);
  std::printf("%-34s %11s %13s\n", "# case", "wall", "peak RSS");
  run_case("baseline (process)", [] { return std::string(); });
  for (const char* pattern : {"all-pairs", "intra-leaf", "cross-leaf", "bisection", "sample:16"}) {
    run_case((std::string("plan ") + pattern).c_str(), [&] { return plan_case(c, pattern); });
  }
  run_case("synthetic run (records only)", [&] { return std::to_string(synthetic_run(c).pairs.size()) + " pairs"; });
  run_case("run + analyse + localise", [&] {
    const pairs::PairsRun run = synthetic_run(c);
    const auto t0 = std::chrono::steady_clock::now();
    const pairs::Analysis a = pairs::analyse(run);
    const auto findings = plan::localise(run.topology, pairs::evidence_of(run, a));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char text[200];
    std::snprintf(text, sizeof text, "analysis alone %.3f s; %zu slow pairs, %zu finding(s): %s", s, a.slow.size(),
                  findings.size(), findings.empty() ? "" : findings[0].why.substr(0, 60).c_str());
    return std::string(text);
  });
  run_case("run + analyse + JSON (as written)", [&] {
    const pairs::PairsRun run = synthetic_run(c);
    const std::string text = pairs::to_json(run, pairs::analyse(run)).dump(1);
    return std::string(pairs::full_detail(run) ? "full" : "sparse") + " document " +
           std::to_string(text.size() / 1024) + " KiB";
  });
  return 0;
}
