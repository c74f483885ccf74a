#include "cli/pairs_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <algorithm>
#include <functional>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "cli/pairs_health.hpp"
#include "cli/pairs_keeper.hpp"
#include "cli/pairs_options.hpp"
#include "cli/pairs_plan.hpp"
#include "cli/progress.hpp"
#include "cli/measuring_run.hpp"
#include "cli/run_setup.hpp"
#include "core/strings.hpp"
#include "pairs/exchange.hpp"
#include "pairs/heatmap_html.hpp"
#include "report/json.hpp"
#include "pairs/outliers.hpp"
#include "pairs/render.hpp"
#include "comm/slowed_backend.hpp"
#include "plan/adaptive.hpp"
#include "plan/topology_readers.hpp"
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

// Rank 0's text (or its usage error) on every rank: a file only rank 0 may be able to read,
// and one verdict for every rank.
std::string from_rank0(World& world, const PairsOptions& o, const std::function<std::string()>& read) {
  std::string text, error;
  if (world.rank() == 0) {
    try {
      text = read();
    } catch (const Error& e) {
      error = e.what();
    }
  }
  const Phase phase{"pairs setup (broadcast)", Deadline::after(o.timeout_s)};
  for (std::string* s : {&error, &text}) {
    long long size = static_cast<long long>(s->size());
    world.broadcast(&size, sizeof size, 0, phase);
    s->resize(static_cast<std::size_t>(size));
    if (size > 0) world.broadcast(s->data(), static_cast<int>(size), 0, phase);
  }
  if (!error.empty()) throw_usage(error);
  return text;
}

// Each node's name for the topology: COMMSWEEP_NODE_NAME of its first rank where set (in a pod
// the Kubernetes node name, from the downward API's spec.nodeName: the pod's host name is the
// pod's), else its host ("host", or "host/HOSTID" for an emulated node).
std::vector<std::string> node_names(World& world, const PairsOptions& o) {
  const char* env = std::getenv("COMMSWEEP_NODE_NAME");
  const auto given = world.gather(std::string(env != nullptr ? env : ""), Phase{"pairs setup (node names)", Deadline::after(o.timeout_s)});
  std::string joined;
  for (const auto& g : given) joined += g + "\n";
  joined = from_rank0(world, o, [&] { return joined; });
  std::vector<std::string> per_rank;
  for (std::size_t at = 0, end; (end = joined.find('\n', at)) != std::string::npos; at = end + 1) {
    per_rank.push_back(joined.substr(at, end - at));
  }
  std::vector<std::string> names;
  for (const auto& ranks : pairs::ranks_by_node(node_of_every_rank(world))) {
    const int first = ranks.front();
    const bool named = first < static_cast<int>(per_rank.size()) && !per_rank[first].empty();
    names.push_back(named ? per_rank[first] : world.hosts_by_rank()[first]);
  }
  return names;
}

// The job's nodes on the topology of --topology (rank 0 reads the files), or one flat group.
plan::Topology job_topology(World& world, const PairsOptions& o) {
  const auto names = node_names(world, o);
  if (o.topology_files.empty()) return plan::flat_topology(names);
  std::string source;
  for (const auto& f : o.topology_files) source += (source.empty() ? "" : " + ") + f;
  const std::string text = from_rank0(world, o, [&] { return read_topology_files(o.topology_files).text; });
  try {
    return plan::bind(parse_topology_text({text, source}), names);
  } catch (const plan::TopologyError& e) {
    throw_usage(std::string("pairs: --topology: ") + e.what());
  }
}

// The pattern's rounds on this topology; none (cross-leaf on one flat group) is a usage error.
plan::Plan job_plan(const PairsOptions& o, const plan::Topology& topology) {
  plan::PatternSpec spec = plan::parse_pattern(o.pattern);
  spec.seed = o.seed;
  plan::Plan p = plan::make_plan(spec, topology);
  if (p.rounds.empty()) {
    throw_usage("pairs: --pattern " + o.pattern + ": no pair to measure on " + topology.source +
                (p.notes.empty() ? "" : " (" + p.notes.front() + ")"));
  }
  return p;
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
void measure_rounds(World& world, RunControl& control, pairs::PairExchange& exchange, const PairsOptions& o,
                    pairs::PairsRun& run, std::size_t first, PairsKeeper* keeper) {
  const auto node_of = node_of_every_rank(world);
  const auto by_node = pairs::ranks_by_node(node_of);
  ProgressLine progress(world.rank() == 0 && isatty(STDERR_FILENO), run.rounds.size() - first);
  const bool complete = control.until_stopped([&] {
    for (int r = static_cast<int>(first); r < static_cast<int>(run.rounds.size()); ++r) {
      const auto start = std::chrono::steady_clock::now();
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
      run.round_wall_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (keeper) keeper->keep(run);
      progress.clear();
      std::cout << pairs::render_round(run, r) << std::flush;
      progress.step("pairs round " + std::to_string(r + 1) + " of " + std::to_string(run.rounds.size()), run.settings.bytes);
    }
  });
  if (!complete) {
    run.complete = false;
    run.interrupted_by = termination_signal_name();
  }
}

// Rounds as ints for the broadcast: per round its pair count, then a b per pair.
std::vector<int> encode_rounds(const std::vector<pairs::Round>& rounds) {
  std::vector<int> out;
  for (const auto& r : rounds) {
    out.push_back(static_cast<int>(r.pairs.size()));
    for (const auto& p : r.pairs) out.push_back(p.a), out.push_back(p.b);
  }
  return out;
}

std::vector<pairs::Round> decode_rounds(const std::vector<int>& in, const std::string& label) {
  std::vector<pairs::Round> rounds;
  for (std::size_t i = 0; i < in.size();) {
    pairs::Round r;
    r.label = label;
    const int n = in[i++];
    for (int k = 0; k < n; ++k, i += 2) r.pairs.push_back({in[i], in[i + 1]});
    rounds.push_back(std::move(r));
  }
  return rounds;
}

constexpr int kMaxFollowUps = 4;  // each re-tests only what is still open; 2 suffice for one fault

// --adaptive: rank 0 judges every pair measured so far, names what it can, and plans rounds that
// re-test the nodes of slow pairs; every rank measures them; until nothing is left to re-test.
void follow_up(World& world, RunControl& control, pairs::PairExchange& exchange, const PairsOptions& o,
               pairs::PairsRun& run, PairsKeeper* keeper) {
  const Phase phase{"pairs follow-up plan (broadcast)", Deadline::after(o.timeout_s)};
  for (int step = 1; step <= kMaxFollowUps; ++step) {
    std::vector<int> encoded;
    int open = 0;  // rank 0: the complete run, and slow pairs to follow
    if (world.rank() == 0 && run.complete) {
      const auto evidence = pairs::evidence_of(run, pairs::analyse(run));
      run.findings = plan::localise(run.topology, evidence);
      encoded = encode_rounds(plan::followup(run.topology, evidence, run.findings, step));
      open = static_cast<int>(encoded.size());
    }
    world.broadcast(&open, sizeof open, 0, phase);
    if (open == 0) return;
    encoded.resize(static_cast<std::size_t>(open));
    world.broadcast(encoded.data(), open * static_cast<int>(sizeof(int)), 0, phase);
    const std::size_t first = run.rounds.size();
    for (auto& r : decode_rounds(encoded, "follow-up " + std::to_string(step))) run.rounds.push_back(std::move(r));
    if (world.rank() == 0) {
      std::cout << "# follow-up " << step << ": " << run.rounds.size() - first
                << " round(s) re-testing the nodes of slow pairs against partners fine so far\n" << std::flush;
    }
    measure_rounds(world, control, exchange, o, run, first, keeper);
    int complete = run.complete ? 1 : 0;
    world.broadcast(&complete, sizeof complete, 0, phase);
    if (!complete) return;
  }
}

// Rank 0: the matrix and findings, the JSON (through the keeper); the exit code.
int report_run(pairs::PairsRun& run, bool adaptive, const std::string& html, PairsKeeper* keeper) {
  const pairs::Analysis analysis = pairs::analyse(run);
  // The findings on every pair measured, the last follow-up's included.
  if (adaptive) run.findings = plan::localise(run.topology, pairs::evidence_of(run, analysis));
  std::cout << pairs::render_report(run, analysis) << std::flush;
  if (keeper) keeper->write_final(run, analysis);
  if (!html.empty()) {
    report::write_file_atomically(html, pairs::render_html(run, analysis));
    std::cout << "# HTML report written to " << html << "\n";
  }
  std::cout << std::flush;
  return exit_code_of(run, analysis);
}

// The testing-only faults name ranks of this job, and a hang a round it has.
void require_planted_faults_fit(const World& world, const PairsOptions& o, int rounds, const plan::Topology& topology) {
  if (!o.slow_leaf.empty() &&
      std::find(topology.leaf_names.begin(), topology.leaf_names.end(), o.slow_leaf) == topology.leaf_names.end()) {
    throw_usage("pairs: --fault slow-leaf:" + o.slow_leaf + " is not a leaf of " + topology.source);
  }
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
  plan::Topology topology = job_topology(world, o);
  const plan::Plan plan = job_plan(o, topology);
  from_rank0(world, o, [&] {
    refuse_over_limit(o, plan, cost_model_of(o), static_cast<int>(world.size() / world.node_count()));
    return std::string();
  });
  require_planted_faults_fit(world, o, static_cast<int>(plan.rounds.size()), topology);

  // Known before the set-up, and in the file a signal during it leaves: the nodes, the rounds.
  pairs::PairsRun run;
  run.settings = {o.bytes / 4 * 4, o.bytes / 4, "float", o.iters, o.warmup, o.check, o.slow_fraction};
  run.nodes = describe_nodes(world, run.provenance);
  run.pattern = plan.pattern;
  run.topology = std::move(topology);
  run.rounds = plan.rounds;
  run.planned_rounds = static_cast<int>(plan.rounds.size());

  RankContext context;
  MeasuringRun<PairsKeeper> lifecycle(world, {o.backend, o.timeout_s, o.json_path, o.arguments, o.fabric, {}}, envp,
                                      context, run);
  if (!lifecycle.start()) return lifecycle.end_failed_transport();
  run.provenance = lifecycle.setup().provenance;
  run.nodes = describe_nodes(world, run.provenance);
  if (root) {
    std::cout << "# " << lifecycle.setup().version_line << "\n" << pairs::render_header(run) << std::flush;
    for (const auto& note : plan.notes) std::cout << "# note: " << note << "\n";
  }

  std::unique_ptr<Backend> slowed;
  const plan::Topology& topo = run.topology;
  if (o.slow_rank == world.rank()) slowed = std::make_unique<SlowedBackend>(lifecycle.backend(), o.fault_slowdown);
  if (!o.slow_leaf.empty() && topo.leaf_names[topo.leaf_of[world.node_of(world.rank())]] == o.slow_leaf) {
    // Every exchange with a rank of another leaf is slow: a bad uplink of this leaf.
    const int my_leaf = topo.leaf_of[world.node_of(world.rank())];
    slowed = std::make_unique<SlowedBackend>(lifecycle.backend(), o.fault_slowdown, /*spin=*/false, [&world, leaf_of = topo.leaf_of, my_leaf](int peer) {
      return peer >= 0 && leaf_of[world.node_of(peer)] != my_leaf;
    });
  }
  Backend& backend = slowed ? *slowed : lifecycle.backend();

  PairsKeeper* keeper = lifecycle.keeper();
  pairs::ExchangeConfig config;
  config.count = run.settings.count;
  config.iters = o.iters;
  config.warmup = o.warmup;
  config.check = o.check;
  config.timeout_s = o.timeout_s;
  config.seed = o.seed;
  RunControl& control = lifecycle.control();
  pairs::PairExchange exchange(world, backend, control, config);
  measure_rounds(world, control, exchange, o, run, 0, keeper);
  if (o.adaptive) follow_up(world, control, exchange, o, run, keeper);

  RunLifecycle::Ending ending;
  if (root) ending.evidence = slow_pair_evidence(run);
  ending.health_block_last = true;  // under the matrix and its findings
  ending.report = [&](nlohmann::json health) {
    if (keeper) keeper->attach("health", std::move(health));
    return report_run(run, o.adaptive, o.html_path, keeper);
  };
  return lifecycle.finish(run, ending);
}

}  // namespace commsweep
