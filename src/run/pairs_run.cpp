// `commsweep pairs`: options -> the job's topology and plan -> the run lifecycle -> the rounds
// (pairs/rounds.hpp) with rank 0's printer -> the matrix, its findings and the exit code.
#include "cli/pairs_command.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/measuring_run.hpp"
#include "run/pairs_health.hpp"
#include "run/pairs_keeper.hpp"
#include "cli/pairs_options.hpp"
#include "run/progress.hpp"
#include "run/run_setup.hpp"
#include "output/output_file.hpp"
#include "pairs/exchange.hpp"
#include "pairs/faults.hpp"
#include "pairs/heatmap_html.hpp"
#include "pairs/job.hpp"
#include "pairs/job_plan.hpp"
#include "pairs/outliers.hpp"
#include "pairs/render.hpp"
#include "pairs/rounds.hpp"
#include "plan/adaptive.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/world.hpp"

namespace commsweep {
namespace {

// Rank 0: a line per round measured (and the keeper's copy), the progress line on a terminal,
// and each follow-up's line.
class RoundPrinter final : public pairs::RoundWatcher {
 public:
  RoundPrinter(bool root, PairsKeeper* keeper) : root_(root), keeper_(keeper) {}
  void rounds_starting(std::size_t count) override { progress_.emplace(root_ && isatty(STDERR_FILENO), count); }
  void rounds_ended() override { progress_.reset(); }
  void round_measured(const pairs::PairsRun& run, int round) override {
    if (keeper_) keeper_->keep(run);
    progress_->clear();
    std::cout << pairs::render_round(run, round) << std::flush;
    progress_->step("pairs round " + std::to_string(round + 1) + " of " + std::to_string(run.rounds.size()),
                    run.settings.bytes);
  }
  void follow_up_planned(int step, std::size_t rounds) override {
    std::cout << "# follow-up " << step << ": " << rounds
              << " round(s) re-testing the nodes of slow pairs against partners fine so far\n" << std::flush;
  }

 private:
  bool root_;
  PairsKeeper* keeper_;
  std::optional<ProgressLine> progress_;
};

// Rank 0: the matrix and findings, the JSON (through the keeper); the exit code.
int report_run(pairs::PairsRun& run, bool adaptive, const std::string& html, PairsKeeper* keeper) {
  const pairs::Analysis analysis = pairs::analyse(run);
  // The findings on every pair measured, the last follow-up's included.
  if (adaptive) run.findings = plan::localise(run.topology, pairs::evidence_of(run, analysis));
  std::cout << pairs::render_report(run, analysis) << std::flush;
  if (keeper) keeper->write_final(run, analysis);
  if (!html.empty()) {
    output::write_output_file(html, pairs::render_html(run, analysis));
    std::cout << "# HTML report written to " << html << "\n";
  }
  std::cout << std::flush;
  return pairs::exit_code_of(run, analysis);
}

}  // namespace

int run_pairs_command(World& world, int argc, char** argv, char** envp) {
  const bool root = world.rank() == 0;
  const PairsOptions o = parse_pairs_options(argc, argv);
  if (o.help) {
    if (root) std::cout << pairs_help_text();
    return exit_code::kOk;
  }
  pairs::require_nodes(world);
  plan::Topology topology = pairs::job_topology(world, o);
  const plan::Plan plan = pairs::job_plan(o, topology);
  pairs::from_rank0(world, o.timeout_s, [&] {
    pairs::refuse_over_limit(o, plan, pairs::cost_model_of(o), static_cast<int>(world.size() / world.node_count()));
    return std::string();
  });
  pairs::require_planted_faults_fit(world, o, static_cast<int>(plan.rounds.size()), topology);

  // Known before the set-up, and in the file a signal during it leaves: the nodes, the rounds.
  pairs::PairsRun run = pairs::planned_run(world, o, plan, std::move(topology));

  RankContext context;
  MeasuringRun<PairsKeeper> lifecycle(world, {o.backend, o.timeout_s, o.json_path, o.arguments, o.fabric, {}}, envp,
                                      context, run);
  if (!lifecycle.start()) return lifecycle.end_failed_transport();
  run.provenance = lifecycle.setup().provenance;
  run.nodes = pairs::describe_nodes(world, run.provenance);
  if (root) {
    std::cout << "# " << lifecycle.setup().version_line << "\n" << pairs::render_header(run) << std::flush;
    for (const auto& note : plan.notes) std::cout << "# note: " << note << "\n";
  }

  const std::unique_ptr<Backend> slowed = pairs::planted_slow_backend(world, lifecycle.backend(), o, run.topology);
  Backend& backend = slowed ? *slowed : lifecycle.backend();

  PairsKeeper* keeper = lifecycle.keeper();
  RunControl& control = lifecycle.control();
  pairs::PairExchange exchange(world, backend, control, pairs::exchange_config(o));
  RoundPrinter printer(root, keeper);
  pairs::measure_rounds(world, control, exchange, o, run, 0, printer);
  if (o.adaptive) pairs::follow_up(world, control, exchange, o, run, printer);

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
