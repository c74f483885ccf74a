#include "run/pairs_run.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "output/output_file.hpp"
#include "pairs/exchange.hpp"
#include "faults/pairs_faults.hpp"
#include "pairs/fault_checks.hpp"
#include "pairs/figures.hpp"
#include "pairs/job.hpp"
#include "pairs/job_plan.hpp"
#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"
#include "pairs/render.hpp"
#include "report/sheet_html.hpp"
#include "pairs/rounds.hpp"
#include "plan/adaptive.hpp"
#include "run/pairs_health.hpp"
#include "run/pairs_keeper.hpp"
#include "run/progress.hpp"
#include "runtime/world.hpp"

namespace commsweep {
namespace {

// Rank 0: a line per round measured (and the keeper's copy), the progress line on a terminal,
// and each follow-up's line.
class RoundPrinter final : public pairs::RoundWatcher {
 public:
  RoundPrinter(bool root, PairsKeeper* keeper, std::ostream& out) : root_(root), keeper_(keeper), out_(out) {}
  void rounds_starting(std::size_t count) override { progress_.emplace(root_ && isatty(STDERR_FILENO), count); }
  void rounds_ended() override { progress_.reset(); }
  void round_measured(const pairs::PairsRun& run, int round) override {
    if (keeper_) keeper_->keep(run);
    progress_->clear();
    out_ << pairs::render_round(run, round) << std::flush;
    progress_->step("pairs round " + std::to_string(round + 1) + " of " + std::to_string(run.rounds.size()),
                    run.settings.bytes);
  }
  void follow_up_planned(int step, std::size_t rounds) override {
    out_ << "# follow-up " << step << ": " << rounds
         << " round(s) re-testing the nodes of slow pairs against partners fine so far\n" << std::flush;
  }

 private:
  bool root_;
  PairsKeeper* keeper_;
  std::ostream& out_;
  std::optional<ProgressLine> progress_;
};

// Rank 0: the matrix and findings, the HTML report; the analysis, for the JSON.
pairs::Analysis report_run(pairs::PairsRun& run, const pairs::PairsSettings& s, std::ostream& out) {
  pairs::Analysis analysis = pairs::analyse(run);
  // The findings on every pair measured, the last follow-up's included.
  if (s.adaptive) run.findings = plan::localise(run.topology, pairs::evidence_of(run, analysis));
  out << pairs::render_report(run, analysis) << std::flush;
  if (!s.html_path.empty()) {
    output::write_output_file(s.html_path, report::render_sheet_html(pairs::sheet_from_json(pairs::report_json(run, analysis))));
    out << "# HTML report written to " << s.html_path << "\n";
  }
  out << std::flush;
  return analysis;
}

// The rounds of RUN on BACKEND (or the planted slow one; a planted hang at the rounds' named
// point), rank 0 printing them to OUT.
void measure(World& world, Backend& backend, RunControl& control, const pairs::PairsSettings& s,
             pairs::PairsRun& run, PairsKeeper* keeper, std::ostream& out) {
  const std::unique_ptr<Backend> slowed = faults::planted_slow_backend(world, backend, s.slow_rank, s.slow_leaf, s.fault_slowdown, run.topology);
  pairs::PairExchange exchange(world, slowed ? *slowed : backend, control, pairs::exchange_config(s));
  RoundPrinter printer(world.rank() == 0, keeper, out);
  faults::PairsFaults planted(s.hang_rank, s.hang_round, world.rank());
  pairs::measure_rounds(world, control, exchange, s, run, 0, printer, planted);
  if (s.adaptive) pairs::follow_up(world, control, exchange, s, run, printer, planted);
}

}  // namespace

PairsJob check_pairs_job(World& world, const pairs::PairsSettings& s) {
  pairs::require_nodes(world);
  PairsJob job;
  job.topology = pairs::job_topology(world, s);
  job.plan = pairs::job_plan(s, job.topology);
  pairs::from_rank0(world, s.timeout_s, [&] {
    pairs::refuse_over_limit(s, job.plan, pairs::cost_model_of(s), static_cast<int>(world.size() / world.node_count()));
    return std::string();
  });
  pairs::require_planted_faults_fit(world, s, static_cast<int>(job.plan.rounds.size()), job.topology);
  return job;
}

int run_pairs_alone(World& world, const RunRequest& request, const pairs::PairsSettings& s, PairsJob job, char** envp,
                    RankContext& context) {
  const bool root = world.rank() == 0;
  // Known before the set-up, and in the file a signal during it leaves: the nodes, the rounds.
  pairs::PairsRun run = pairs::planned_run(world, s, job.plan, std::move(job.topology));
  MeasuringRun<PairsKeeper> lifecycle(world, request, envp, context, run);
  if (!lifecycle.start()) return lifecycle.end_failed_transport();
  run.provenance = lifecycle.setup().provenance;
  run.nodes = pairs::describe_nodes(world, run.provenance);
  if (root) {
    std::cout << "# " << lifecycle.setup().version_line << "\n" << pairs::render_header(run) << std::flush;
    for (const auto& note : job.plan.notes) std::cout << "# note: " << note << "\n";
  }
  PairsKeeper* keeper = lifecycle.keeper();
  measure(world, lifecycle.backend(), lifecycle.control(), s, run, keeper, std::cout);

  RunLifecycle::Ending ending;
  if (root) ending.evidence = slow_pair_evidence(run);
  ending.health_block_last = true;  // under the matrix and its findings
  ending.report = [&](nlohmann::json health, std::vector<std::string> health_fail) {
    run.health_fail = std::move(health_fail);
    if (keeper) keeper->attach("health", std::move(health));
    const pairs::Analysis analysis = report_run(run, s, std::cout);
    if (keeper) keeper->write_final(pairs::to_json(run, analysis));
    return pairs::exit_code_of(run, analysis);
  };
  return lifecycle.finish(run, ending);
}

Outcome run_pairs_stage(Stage& stage, const pairs::PairsSettings& s, PairsJob job, report::Results& results) {
  World& world = stage.world;
  const bool root = world.rank() == 0;
  pairs::PairsRun run = pairs::planned_run(world, s, job.plan, std::move(job.topology));
  run.provenance = stage.setup.provenance;
  run.nodes = pairs::describe_nodes(world, run.provenance);
  if (root) {
    stage.out << pairs::render_header(run) << std::flush;
    for (const auto& note : job.plan.notes) stage.out << "# note: " << note << "\n";
  }
  measure(world, stage.backend, stage.control, s, run, nullptr, stage.out);
  run.complete = !stage.control.interrupted();
  if (!run.complete) run.interrupted_by = termination_signal_name();
  Outcome outcome;
  if (!root) return outcome;
  const pairs::Analysis analysis = report_run(run, s, stage.out);
  const int code = pairs::exit_code_of(run, analysis);
  outcome.wrong = analysis.wrong_total;
  outcome.verdict = code == exit_code::kSlow ? code : 0;
  outcome.evidence = slow_pair_evidence(run);
  results.documents.push_back(pairs::to_json(run, analysis));
  if (stage.setup.keeper) stage.setup.keeper->add_document(results.documents.back());
  return outcome;
}

}  // namespace commsweep
