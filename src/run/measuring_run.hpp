// The one lifecycle of every command that measures: the registered workloads' (`commsweep
// TEST...`, `ep`, `pairs`, `nvlink`: run/workload.hpp), alone or as `suite`'s sweeps, all
// through run/measure.hpp, where a workload plugs in its measurement step. The usage checks that
// need the world (a root outside the job, experts that do not divide, a pairs job of one node)
// come with the keeper made, before start:
//
//   MeasuringRun run(world, request, envp, context, file)
//        --json writable, --health-thresholds and --expected read, COMMSWEEP_SYSFS_ROOT a folder (else a
//        usage Error on every rank), then the keeper of FILE at once (ResultsKeeper:
//        run/results_keeper.hpp, or a workload's DocumentKeeper: run/document_keeper.hpp): a
//        SIGTERM / SIGINT from here on leaves an incomplete file (no rows, complete: false,
//        interrupted_by, the early provenance) however far the set-up got;
//   run.start(hook)
//        the brief preflight (unless --no-preflight), the health snapshot before, the backend's
//        set-up (start_run: binding, topology, transport check), HOOK (each sweep's prepare():
//        EP's NCCL version policy, which the preamble reports), the preamble; false when the
//        transport check failed:
//   return run.end_failed_transport()
//        its health finding on the whole job, exit code 6 (core/exit_codes.hpp);
//   ... the sweeps measure; their engines are watched and stopped through run.control()
//        (sweep/run_control.hpp: the phases' deadlines, the agreed stop on a signal) ...
//   return run.finish(results, evidence, verdict, document)
//        the record complete, or interrupted_by the signal where the ranks agreed to stop;
//        the health snapshot after; rank 0's report (the final file through the keeper, its
//        summary not ok and naming each health FAIL); the exit code rank 0 decides (a health
//        FAIL is 6, combined with the run's other outcomes), on every rank.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/document_keeper.hpp"
#include "run/expected_run.hpp"
#include "run/health_gather.hpp"
#include "run/results_keeper.hpp"
#include "run/run_setup.hpp"
#include "run/run_settings.hpp"
#include "comm/make_backend.hpp"
#include "report/result.hpp"
#include "runtime/termination.hpp"
#include "runtime/world.hpp"
#include "sweep/run_control.hpp"

namespace commsweep {

// What the lifecycle takes from a command: the run's settings (run/run_settings.hpp) and argv.
struct RunRequest : RunSettings {
  std::vector<std::string> arguments;  // argv after the program name, for provenance
};

// What rank 0 knows of the run before its set-up: the build, the start, the ranks and hosts,
// the arguments, the backend asked for (the keeper's file on a signal during the set-up).
report::Provenance early_provenance(const World& world, const RunRequest& request);

// The lifecycle without its keeper (MeasuringRun below adds it).
class RunLifecycle {
 public:
  RunLifecycle(const RunLifecycle&) = delete;
  RunLifecycle& operator=(const RunLifecycle&) = delete;
  virtual ~RunLifecycle() = default;

  // The opening after the keeper (see the top). BEFORE_PREAMBLE runs on every rank once the
  // backend is set up; OPTIONS are what the measurements ask of the backend. False when the
  // transport check failed (every rank agrees).
  bool start(const std::function<void(RunSetup&)>& before_preamble = {}, const BackendOptions& options = {});
  // After start() returned false: the health finding on the whole job; exit code 6.
  int end_failed_transport();

  World& world() { return world_; }
  // The expected figures in force (--expected over the built-in table; rank 0's).
  const regress::ExpectedTable& expected_table() const { return expected_table_; }
  const RunRequest& request() const { return request_; }
  RunControl& control() { return control_; }
  // After start(): the backend, the provenance, the header lines.
  RunSetup& setup() { return setup_; }
  const RunSetup& setup() const { return setup_; }
  Backend& backend() { return *setup_.backend.backend; }

  // What the ending of each record needs (MeasuringRun::finish).
  struct Ending {
    std::vector<health::TrafficEvidence> evidence;  // rank 0's, joined with the health findings
    // Where rank 0 prints the health block: before REPORT (the sweeps: under the tables, before
    // "# Results written") or after it (a workload's own document: under its report, which
    // names the health FAILs and so comes after the snapshot).
    bool health_block_last = false;
    // Rank 0: the final file through the keeper (HEALTH: the snapshot's JSON, null when off;
    // HEALTH_FAIL: its FAIL findings, one line each, for the record's summary and its exit
    // code 6) and what the command prints with it; returns the exit code.
    std::function<int(nlohmann::json health, std::vector<std::string> health_fail)> report;
  };

 protected:
  // --json writable (a usage Error on every rank otherwise), before anything else.
  RunLifecycle(World& world, RunRequest request, char** envp, RankContext& context);
  // The health snapshot after, rank 0's report, its exit code on every rank.
  int end(const Ending& ending);
  // The command's keeper (rank 0 with --json), null elsewhere.
  virtual std::shared_ptr<Keeper> kept_by() const = 0;

 private:
  World& world_;
  RunRequest request_;
  char** envp_;
  RankContext& context_;
  // In this order: the set-up's health check polls through the watchdog and goes first.
  RunControl control_;
  health::RuleBook health_rules_;  // --health-thresholds (rank 0's), read before the preflight
  regress::ExpectedTable expected_table_;  // --expected / COMMSWEEP_EXPECTED over the built-in (rank 0's)
  std::optional<RunHealth> health_;
  // Rank 0: the brief preflight's FAIL checks, one line each (preflight_fail_lines).
  std::vector<std::string> preflight_fails_;
  RunSetup setup_;
};

// What a measuring run's --json file is: the results file (commsweep.results: the rows, a
// suite's documents), or the document of the one workload it runs alone that has one
// (Workload::schema: pairs, nvlink), whose analysis is printed after the health snapshot, with
// the health block under it.
enum class RunFile { Results, Document };

// Rank 0, a workload's document run alone: its --html and --prometheus (run/report_files.hpp)
// drawn from what REPORTED made, the gauge of the run's EXIT_CODE.
using DocumentFiles = std::function<void(const DocumentReport& reported, int exit_code)>;

// The lifecycle with its keeper, whichever FILE it writes: a ResultsKeeper (record
// report::Results) or the DocumentKeeper (run/document_keeper.hpp).
class MeasuringRun final : public RunLifecycle {
 public:
  // --json writable, then the keeper (rank 0 with --json; null elsewhere) holding the early
  // provenance.
  MeasuringRun(World& world, RunRequest request, char** envp, RankContext& context, RunFile file);

  RunFile file() const { return file_; }
  // Rank 0 with --json: the keeper of the file (by FILE, the other null); null elsewhere.
  ResultsKeeper* results_keeper() const { return results_keeper_.get(); }
  DocumentKeeper* document_keeper() const { return document_keeper_.get(); }
  std::shared_ptr<Keeper> kept_by() const override;

  // After start(): the results' header (provenance, transport), for the command to complete.
  report::Results header() const;
  // HEADER as the command completed it (notes, buffers), to the results keeper; the rows the
  // sweeps print from now on are kept under it (run.setup().keeper).
  void keep(const report::Results& header);
  // The ending: RESULTS (its rows, wrong_total, avg_busbw_gbps) complete, or interrupted_by the
  // signal where the ranks agreed to stop (RunControl); the health snapshot after (its findings
  // joined with EVIDENCE); rank 0's file: the results (the health block under the tables), or
  // the workload's document as DOCUMENT reports it (the health block under its report); the
  // one judge's exit code of the results' outcomes (outcomes_of) combined with VERDICT (a
  // sweep's fabric verdict: a slow pair, 10) by core/exit_codes.hpp's precedence. FILES: the
  // workload's --html and --prometheus of what DOCUMENT reported, with that exit code, written
  // after its report and before its file.
  int finish(report::Results& results, std::vector<health::TrafficEvidence> evidence = {}, int verdict = 0,
             const DocumentReporter& document = {}, const DocumentFiles& files = {});

 private:
  RunFile file_;
  std::shared_ptr<ResultsKeeper> results_keeper_;
  std::shared_ptr<DocumentKeeper> document_keeper_;
};

}  // namespace commsweep
