#include "run/pairs_run.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "judge/outcomes.hpp"
#include "pairs/exchange.hpp"
#include "faults/pairs_faults.hpp"
#include "pairs/fault_checks.hpp"
#include "pairs/job.hpp"
#include "pairs/job_plan.hpp"
#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"
#include "pairs/render.hpp"
#include "pairs/rounds.hpp"
#include "plan/adaptive.hpp"
#include "run/gpu_window_observer.hpp"
#include "run/pairs_health.hpp"
#include "run/progress.hpp"
#include "runtime/gpu.hpp"
#include "runtime/termination.hpp"
#include "runtime/world.hpp"

namespace commsweep {
namespace {

// What the keeper of `commsweep pairs --json` holds (run/document_keeper.hpp): the rounds
// measured so far, the matrix holding null for the pairs not measured. Nothing is written before
// the first round but on a signal (the planned run, no pair).
struct PairsDocument {
  using Record = pairs::PairsRun;
  static constexpr const char* kUnit = "pair";
  static std::size_t measured(const Record& r) { return r.pairs.size(); }
  static nlohmann::json document(const Record& r) { return pairs::to_json(r, pairs::analyse(r)); }
  // After the first round only what changed is copied: a copy of the whole run after every round
  // would cost rounds x pairs (quadratic: 999 rounds of up to 500,000 pairs at 1,000 nodes).
  static void update(Record& kept, const Record& now) {
    // The first round's: the whole run (the planned record had no GPUs, no full provenance).
    if (kept.pairs.empty() || kept.pairs.size() > now.pairs.size()) {
      kept = now;
      return;
    }
    kept.pairs.insert(kept.pairs.end(), now.pairs.begin() + static_cast<long>(kept.pairs.size()), now.pairs.end());
    if (kept.rounds.size() != now.rounds.size()) kept.rounds = now.rounds;  // follow-up rounds appended
    kept.round_wall_s = now.round_wall_s;
    kept.findings = now.findings;
    kept.complete = now.complete;
    kept.interrupted_by = now.interrupted_by;
  }
};

// Rank 0: a line per round measured (and the keeper's copy), the progress line on a terminal,
// and each follow-up's line.
class RoundPrinter final : public pairs::RoundWatcher {
 public:
  RoundPrinter(bool root, DocumentKeeper* keeper, std::ostream& out) : root_(root), keeper_(keeper), out_(out) {}
  void rounds_starting(std::size_t count) override { progress_.emplace(root_ && isatty(STDERR_FILENO), count); }
  void rounds_ended() override { progress_.reset(); }
  void round_measured(const pairs::PairsRun& run, int round) override {
    if (keeper_) keeper_->keep<PairsDocument>(run);
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
  DocumentKeeper* keeper_;
  std::ostream& out_;
  std::optional<ProgressLine> progress_;
};

// Rank 0: the matrix and findings; the analysis, for the JSON.
pairs::Analysis report_run(pairs::PairsRun& run, const pairs::PairsSettings& s, std::ostream& out) {
  pairs::Analysis analysis = pairs::analyse(run);
  // The findings on every pair measured, the last follow-up's included.
  if (s.adaptive) run.findings = plan::localise(run.topology, pairs::evidence_of(run, analysis));
  out << pairs::render_report(run, analysis) << std::flush;
  return analysis;
}

// The rounds of RUN on BACKEND (or the planted slow one; a planted hang at the rounds' named
// point), rank 0 printing them to OUT, each rank's GPU read around each round (docs/gpu-state.md).
// Returns the line that says what the reads cost, or why none were made ("" where nothing is
// said: the mpi backend without a recording, as its pages' outputs show).
std::string measure(World& world, Backend& backend, RunControl& control, const pairs::PairsSettings& s,
                    pairs::PairsRun& run, DocumentKeeper* keeper, std::ostream& out) {
  const std::unique_ptr<Backend> slowed = faults::planted_slow_backend(world, backend, s.slow_rank, s.slow_leaf, s.fault_slowdown, run.topology);
  pairs::PairExchange exchange(world, slowed ? *slowed : backend, control, pairs::exchange_config(s));
  RoundPrinter printer(world.rank() == 0, keeper, out);
  faults::PairsFaults planted(s.hang_rank, s.hang_round, world.rank());
  const std::string backend_name(backend.name());
  NvmlWindowObserver gpu_state(backend_name, world.local_rank(),
                               backend_name == "nccl" ? planned_gpu_bus_id(world.local_rank()) : "");
  pairs::measure_rounds(world, control, exchange, s, run, 0, printer, planted, &gpu_state);
  if (s.adaptive) pairs::follow_up(world, control, exchange, s, run, printer, planted, &gpu_state);
  return gpu_state.reads() > 0 || backend_name == "nccl" ? gpu_state_note(gpu_state) : "";
}

}  // namespace

PairsJob check_pairs_job(World& world, const pairs::PairsSettings& s) {
  pairs::require_nodes(world);
  plan::Topology topology = pairs::job_topology(world, s);
  PairsJob job;
  job.plan = pairs::job_plan(s, topology);
  pairs::from_rank0(world, s.timeout_s, [&] {
    pairs::refuse_over_limit(s, job.plan, pairs::cost_model_of(s), static_cast<int>(world.size() / world.node_count()));
    return std::string();
  });
  pairs::require_planted_faults_fit(world, s, static_cast<int>(job.plan.rounds.size()), topology);
  job.planned = pairs::planned_run(world, s, job.plan, std::move(topology));
  return job;
}

void plan_pairs_document(DocumentKeeper& keeper, const PairsJob& job) { keeper.plan<PairsDocument>(job.planned); }

Outcome run_pairs_stage(Stage& stage, const pairs::PairsSettings& s, PairsJob job) {
  World& world = stage.world;
  const bool root = world.rank() == 0;
  auto run = std::make_shared<pairs::PairsRun>(std::move(job.planned));
  run->provenance = stage.setup.provenance;
  run->nodes = pairs::describe_nodes(world, run->provenance);
  if (root) {
    stage.out << pairs::render_header(*run) << std::flush;
    for (const auto& note : job.plan.notes) stage.out << "# note: " << note << "\n";
  }
  const std::string gpu_state_line = measure(world, stage.backend, stage.control, s, *run, stage.document, stage.out);
  run->complete = !stage.control.interrupted();
  if (!run->complete) run->interrupted_by = termination_signal_name();
  Outcome outcome;
  if (!root) return outcome;
  outcome.evidence = slow_pair_evidence(*run);
  // The matrix and findings name the health FAILs when it runs alone: its report comes once
  // the run's health is known (run/measure.cpp).
  outcome.report = [run, s, gpu_state_line](const std::vector<std::string>& health_fail, std::ostream& out) {
    run->health_fail = health_fail;
    const pairs::Analysis analysis = report_run(*run, s, out);
    if (!gpu_state_line.empty()) out << "# " << gpu_state_line << "\n" << std::flush;
    DocumentReport reported;
    reported.document = pairs::to_json(*run, analysis);
    // --html's heatmap has every pair up to 128 nodes, where the --json file is full up to 64.
    if (!pairs::full_detail(*run) && run->nodes.size() <= pairs::kReportFullNodes) {
      reported.drawn = pairs::report_json(*run, analysis);
    }
    reported.wrong = analysis.wrong_total;
    reported.verdict = judge::exit_code_of(pairs::outcomes_of(*run, analysis)) == exit_code::kSlow ? exit_code::kSlow : 0;
    return reported;
  };
  return outcome;
}

}  // namespace commsweep
