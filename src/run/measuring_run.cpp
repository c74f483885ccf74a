#include "run/measuring_run.hpp"

#include <algorithm>
#include <iostream>

#include "judge/outcomes.hpp"
#include "run/preflight_gather.hpp"
#include "run/provenance.hpp"
#include "report/json.hpp"
#include "runtime/termination.hpp"
#include "core/error.hpp"
#include "version.hpp"

namespace commsweep {

report::Provenance early_provenance(const World& world, const RunRequest& request) {
  report::Provenance p;
  p.commsweep_version = kVersion;
  p.git_hash = kGitHash;
  p.started_at = utc_now_iso8601();
  p.backend = request.backend == BackendChoice::Mpi    ? "mpi"
              : request.backend == BackendChoice::Nccl ? "nccl"
                                                       : "auto";
  p.ranks = world.size();
  p.hosts = world.hosts_by_rank();
  p.driver_version = p.cuda_version = p.nccl_version = p.nccl_headers_version = p.mpi_version = "unknown";
  p.arguments = request.arguments;
  return p;
}

RunLifecycle::RunLifecycle(World& world, RunRequest request, char** envp, RankContext& context)
    : world_(world), request_(std::move(request)), envp_(envp), context_(context), control_(world) {
  // Before the preflight and the run: a results file that cannot be written would lose them,
  // and a thresholds file or a sysfs root that is wrong would judge them wrongly.
  require_writable_results(world_, request_.json_path, request_.timeout_s);
  health_rules_ = health_rules(world_, thresholds_file(request_.fabric.health_thresholds), request_.timeout_s);
  expected_table_ = commsweep::expected_table(world_, expected_file(request_.fabric.expected), request_.timeout_s);
  // Every rank takes part (a root set on some nodes only must not leave the others waiting).
  if (health_around_runs())
    require_sysfs_root(world_, health_sysfs_root(), "COMMSWEEP_SYSFS_ROOT=" + health_sysfs_root(), request_.timeout_s,
                       /*health=*/true);
}

bool RunLifecycle::start(const std::function<void(RunSetup&)>& before_preamble, const BackendOptions& options) {
  // A summary line and any FAIL rows, all '#' lines: the tables below are unchanged. Its FAILs
  // are the run's health FAILs at its end (rank 0's).
  if (request_.fabric.preflight) preflight_fails_ = run_brief_preflight(world_, envp_, request_.timeout_s);
  // Before the backend's set-up and its transport check.
  health_.emplace(world_, request_.timeout_s, health_rules_, request_.fabric.health_verbose);
  setup_ = start_run(world_, control_.watchdog(), request_.backend, request_.timeout_s, request_.arguments, envp_,
                     context_, request_.topology, request_.fabric, options);
  // Rank 0 with --json: a hang's account from NCCL's RAS goes into the file its last words write.
  if (setup_.hang_account) setup_.hang_account->keep_in(kept_by());
  if (before_preamble) before_preamble(setup_);
  print_preamble(world_, setup_);
  return !setup_.transport_failed;
}

int RunLifecycle::end_failed_transport() {
  health_->finish(std::cout, {whole_job(world_, "the transport check that failed")});
  return exit_code::kHealthFail;
}

int RunLifecycle::end(const Ending& ending) {
  const bool root = world_.rank() == 0;
  const nlohmann::json health = ending.health_block_last ? health_->finish_quietly(ending.evidence)
                                                         : health_->finish(std::cout, ending.evidence);
  // Rank 0: the FAIL findings, persistent ones included (health/report.hpp, fail_lines says why).
  std::vector<std::string> fails = preflight_fails_;
  if (root) {
    const auto found = health::fail_lines(health_->report());
    fails.insert(fails.end(), found.begin(), found.end());
  }
  if (root && !preflight_fails_.empty())  // printed at the start; said again where the verdict is read
    std::cout << "# preflight: " << preflight_fails_.size() << " FAIL above (" << preflight_fails_.front()
              << (preflight_fails_.size() > 1 ? ", ..." : "") << "): the run is no pass (exit 6, a health FAIL)\n"
              << std::flush;
  int code = root ? ending.report(health, std::move(fails)) : exit_code::kOk;
  if (root && ending.health_block_last) std::cout << health_->block() << std::flush;
  // The others wait while rank 0 writes its files: at least 5 minutes whatever -T, so that a
  // large file on a slow disk is not taken for a hang.
  world_.broadcast(&code, sizeof code, 0, Phase{"the run's verdict", Deadline::after(std::max(request_.timeout_s, 300.0))});
  return code;
}

MeasuringRun::MeasuringRun(World& world, RunRequest request, char** envp, RankContext& context, RunFile file)
    : RunLifecycle(world, std::move(request), envp, context), file_(file) {
  report::Provenance early = early_provenance(this->world(), this->request());
  if (file_ == RunFile::Document) {
    document_keeper_ = make_keeper<DocumentKeeper>(this->world(), this->request().json_path, std::move(early));
  } else {
    report::Results header;
    header.provenance = std::move(early);
    results_keeper_ = make_keeper<ResultsKeeper>(this->world(), this->request().json_path, std::move(header));
  }
}

std::shared_ptr<Keeper> MeasuringRun::kept_by() const {
  if (document_keeper_) return document_keeper_;
  return results_keeper_;
}

report::Results MeasuringRun::header() const {
  report::Results results;
  results.provenance = setup().provenance;
  results.transport = setup().transport;
  return results;
}

void MeasuringRun::keep(const report::Results& header) {
  if (results_keeper_) results_keeper_->set_header(header);
  setup().keeper = results_keeper_;
}

int MeasuringRun::finish(report::Results& results, std::vector<health::TrafficEvidence> evidence, int verdict,
                         const DocumentReporter& document, const DocumentFiles& files) {
  results.complete = !control().interrupted();
  if (!results.complete) results.interrupted_by = termination_signal_name();
  Ending ending;
  ending.evidence = std::move(evidence);
  if (file_ == RunFile::Results) {
    ending.report = [&](nlohmann::json health, std::vector<std::string> health_fail) {
      results.health = std::move(health);
      results.health_fail = std::move(health_fail);
      if (results_keeper_) results_keeper_->write_final(results);
      return combined_exit(judge::exit_code_of(outcomes_of(results)), verdict);
    };
    return end(ending);
  }
  // The workload's report names the health FAILs: it comes after the snapshot, the block under it.
  ending.health_block_last = true;
  ending.report = [&](nlohmann::json health, std::vector<std::string> health_fail) {
    results.health_fail = std::move(health_fail);
    const DocumentReport reported = document ? document(results.health_fail, std::cout) : DocumentReport{};
    results.wrong_total += reported.wrong;
    const int code = combined_exit({judge::exit_code_of(outcomes_of(results)), verdict, reported.verdict});
    if (files && !reported.document.is_null()) files(reported, code);
    if (document_keeper_ && !reported.document.is_null()) {
      document_keeper_->attach("health", std::move(health));
      document_keeper_->write_final(reported.document);
    }
    std::cout << std::flush;
    return code;
  };
  return end(ending);
}

}  // namespace commsweep
