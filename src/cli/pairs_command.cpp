#include "cli/pairs_command.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "cli/pairs_keeper.hpp"
#include "cli/pairs_options.hpp"
#include "cli/run_setup.hpp"
#include "core/strings.hpp"
#include "pairs/exchange.hpp"
#include "pairs/outliers.hpp"
#include "pairs/render.hpp"
#include "pairs/slow_rank.hpp"
#include "runtime/error.hpp"
#include "runtime/termination.hpp"
#include "runtime/world.hpp"

namespace commsweep {
namespace {

// A slow pair is a fabric check that failed, as a preflight FAIL is.
constexpr int kSlowPair = exit_code::kPreflightFailed;

std::vector<int> node_of_every_rank(const World& world) {
  std::vector<int> out;
  for (int r = 0; r < world.size(); ++r) out.push_back(world.node_of(r));
  return out;
}

void require_nodes(const World& world) {
  if (world.node_count() >= 2) return;
  throw_usage("pairs: this job has 1 node (" + world.host() + ", " + std::to_string(world.size()) +
              " ranks): pairs needs at least 2 (nodes are hosts, or ranks grouped by NCCL_HOSTID: "
              "scripts/emulate-nodes.sh emulates nodes on one machine)");
}

// The nodes as rank 0 prints them: name, ranks, and their GPUs from the provenance.
std::vector<pairs::Node> describe_nodes(const World& world, const report::Provenance& provenance) {
  std::vector<pairs::Node> nodes;
  for (const auto& ranks : pairs::ranks_by_node(node_of_every_rank(world))) {
    pairs::Node n;
    n.name = world.hosts_by_rank()[ranks.front()];
    n.ranks = ranks;
    for (int r : ranks) {
      n.pci_bus_ids.push_back(r < static_cast<int>(provenance.gpus.size()) ? provenance.gpus[r].pci_bus_id : "-");
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// Rank 0 turns every rank's "time wrong" into the round's pairs and their rails.
void add_round(pairs::PairsRun& run, int round, const std::vector<std::string>& reports, bool checked) {
  const std::uint64_t bytes = run.settings.bytes;
  for (const auto& np : run.rounds[round].pairs) {
    pairs::PairMeasurement m;
    m.round = round;
    m.node_a = np.a;
    m.node_b = np.b;
    const auto& a = run.nodes[np.a].ranks;
    const auto& b = run.nodes[np.b].ranks;
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
      pairs::Rail rail;
      rail.local_rank = static_cast<int>(k);
      rail.rank_a = a[k];
      rail.rank_b = b[k];
      std::uint64_t wrong_a = 0, wrong_b = 0;
      std::istringstream(reports[a[k]]) >> rail.time_us_a >> wrong_a;
      std::istringstream(reports[b[k]]) >> rail.time_us_b >> wrong_b;
      rail.time_us = std::max(rail.time_us_a, rail.time_us_b);
      // bytes / us = 1e6 B/s; GB/s is 1e9 B/s.
      rail.gbps = rail.time_us > 0 ? static_cast<double>(bytes) / rail.time_us / 1e3 : 0;
      if (checked) rail.wrong = wrong_a + wrong_b;
      m.rails.push_back(rail);
    }
    run.pairs.push_back(std::move(m));
  }
}

int exit_code_of(const pairs::PairsRun& run, const pairs::Analysis& a) {
  if (a.wrong_total > 0) return exit_code::kWrongResults;
  if (!run.complete) return exit_code::kInterrupted;
  return a.slow.empty() ? exit_code::kOk : kSlowPair;
}

// --fault hang:R@ROUND: rank R stays alive and silent from that round on, as a hung process
// would, until the job is ended by its peers' -T.
void hang_if_planted(const World& world, const PairsOptions& o, int round) {
  if (world.rank() != o.hang_rank || round + 1 < o.hang_round) return;
  std::fprintf(stderr, "commsweep: rank %d: fault injection: hanging in pairs round %d\n", world.rank(), round + 1);
  std::fflush(stderr);
  stay_until_the_end();
}

// Every round on every rank; rank 0 collects the rails, prints a line per round and hands the
// run to the keeper. A SIGTERM ends the rounds (run.complete false) with those measured kept; a
// timeout or an error ends the job, and the keeper's last words keep them.
void measure_rounds(World& world, Backend& backend, Watchdog& watchdog, const PairsOptions& o,
                    pairs::PairsRun& run, PairsKeeper* keeper) {
  pairs::ExchangeConfig config;
  config.count = run.settings.count;
  config.iters = o.iters;
  config.warmup = o.warmup;
  config.check = o.check;
  config.timeout_s = o.timeout_s;
  config.seed = o.seed;
  pairs::PairExchange exchange(world, backend, watchdog, config);
  const auto node_of = node_of_every_rank(world);
  const auto by_node = pairs::ranks_by_node(node_of);
  try {
    for (int r = 0; r < static_cast<int>(run.rounds.size()); ++r) {
      const std::string label = "pairs round " + std::to_string(r + 1);
      hang_if_planted(world, o, r);
      const int partner = pairs::partner_of(world.rank(), run.rounds[r], by_node, node_of);
      const pairs::RankRound mine = exchange.run_round(partner, label);
      std::ostringstream report;
      report.precision(17);
      report << mine.time_us << " " << mine.wrong;
      const auto reports = world.gather(report.str(), Phase{label + " (gather)", Deadline::after(o.timeout_s)});
      if (world.rank() != 0) continue;
      add_round(run, r, reports, o.check > 0);
      if (keeper) keeper->keep(run);
      std::cout << pairs::render_round(run, r) << std::flush;
    }
  } catch (const Interrupted&) {
    run.complete = false;
    run.interrupted_by = termination_signal_name();
  }
}

// Rank 0: the matrix and findings, the JSON (through the keeper); the exit code.
int report_run(const pairs::PairsRun& run, PairsKeeper* keeper) {
  const pairs::Analysis analysis = pairs::analyse(run);
  std::cout << pairs::render_report(run, analysis) << std::flush;
  if (keeper) keeper->write_final(run, analysis);
  std::cout << std::flush;
  return exit_code_of(run, analysis);
}

// The testing-only faults name ranks of this job, and a hang a round it has.
void require_planted_faults_fit(const World& world, const PairsOptions& o, int rounds) {
  if (o.slow_rank >= world.size()) {
    throw_usage("pairs: --fault slow-rank:" + std::to_string(o.slow_rank) + " is not a rank of this job");
  }
  if (o.hang_rank >= world.size()) {
    throw_usage("pairs: --fault hang:" + std::to_string(o.hang_rank) + "@" + std::to_string(o.hang_round) +
                " is not a rank of this job");
  }
  if (o.hang_rank >= 0 && o.hang_round > rounds) {
    throw_usage("pairs: --fault hang:" + std::to_string(o.hang_rank) + "@" + std::to_string(o.hang_round) +
                ": this job has " + count_of(static_cast<std::size_t>(rounds), "round"));
  }
}

}  // namespace

int run_pairs_command(World& world, int argc, char** argv, char** envp) {
  const bool root = world.rank() == 0;
  const PairsOptions o = parse_pairs_options(argc, argv);
  if (o.help) {
    if (root) std::cout << pairs_help_text();
    return exit_code::kOk;
  }
  require_nodes(world);
  std::vector<pairs::Round> rounds = pairs::round_robin(world.node_count());
  require_planted_faults_fit(world, o, static_cast<int>(rounds.size()));
  require_writable_results(world, o.json_path, o.timeout_s);

  RankContext context;
  Watchdog watchdog(world);
  RunSetup setup = start_run(world, watchdog, o.backend, o.timeout_s, o.arguments, envp, context);
  std::unique_ptr<Backend> slowed;
  if (o.slow_rank == world.rank()) slowed = std::make_unique<pairs::SlowRankBackend>(*setup.backend.backend);
  Backend& backend = slowed ? *slowed : *setup.backend.backend;

  pairs::PairsRun run;
  run.provenance = setup.provenance;
  run.settings = {o.bytes / 4 * 4, o.bytes / 4, "float", o.iters, o.warmup, o.check, o.slow_fraction};
  run.nodes = describe_nodes(world, setup.provenance);
  run.rounds = std::move(rounds);
  if (root) {
    std::cout << "# " << world_summary(world) << "\n# " << setup.backend.note << "\n# " << setup.version_line
              << "\n" << pairs::render_header(run) << std::flush;
  }

  const std::shared_ptr<PairsKeeper> keeper = make_keeper<PairsKeeper>(world, o.json_path);
  measure_rounds(world, backend, watchdog, o, run, keeper.get());
  int code = root ? report_run(run, keeper.get()) : exit_code::kOk;
  world.broadcast(&code, sizeof code, 0, Phase{"pairs verdict", Deadline::after(o.timeout_s)});
  return code;
}

}  // namespace commsweep
