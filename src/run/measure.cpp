#include "run/measure.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "run/report_files.hpp"

namespace commsweep {
namespace {

std::string banner(const RunSweep& s, std::size_t index, std::size_t count) {
  return "# Suite sweep " + std::to_string(index + 1) + " of " + std::to_string(count) + ": " + s.name + " (" +
         s.measurement->what() + ")";
}

void add_note(report::Results& results, const std::string& note) {
  if (note.empty() || std::find(results.notes.begin(), results.notes.end(), note) != results.notes.end()) return;
  results.notes.push_back(note);
}

// Rank 0: a workload's --html and --prometheus (run/report_files.hpp) from its registry entry's
// figures of what REPORTED drew, the gauge EXIT_CODE: written here once for every workload with a
// document of its own, none of which writes them.
void write_reports(const RunSweep& s, const DocumentReport& reported, int exit_code, std::ostream& out) {
  if (!s.reports.any() || !s.workload || !s.workload->figures || reported.document.is_null()) return;
  write_report_files(s.reports, s.workload->figures(reported.drawn.is_null() ? reported.document : reported.drawn),
                     exit_code, out);
}

}  // namespace

void check_sweep(World& world, const RunSweep& sweep) {
  try {
    sweep.measurement->check(world);
  } catch (const Error& e) {
    // A usage error, or buffers too large for the memory (out of memory): the suite's sweep named.
    if ((e.kind() != ErrorKind::Usage && e.kind() != ErrorKind::OutOfMemory) || sweep.where.empty()) throw;
    throw Error(e.kind(), sweep.where + ": " + e.what());
  }
}

namespace {

// The lifecycle of run_sweeps and run_alone: FILE the --json file's kind (a document only for
// one sweep alone).
int run_lifecycle(World& world, const RunRequest& request, const std::function<std::vector<RunSweep>()>& read,
                  RunFile file, char** envp, RankContext& context) {
  const bool root = world.rank() == 0;
  MeasuringRun run(world, request, envp, context, file);
  const std::vector<RunSweep> sweeps = read();
  // Every sweep before the first runs: a bad root or experts that do not divide must not end a
  // suite half-way.
  for (const RunSweep& s : sweeps) check_sweep(world, s);
  // Alone, a workload's own document is its file from now on: what it planned (a signal during
  // the set-up leaves it, saying nothing was measured), then each step's record.
  DocumentKeeper* document = run.document_keeper();
  if (document) sweeps.front().measurement->plan_document(*document);
  std::vector<std::string> notes(sweeps.size());
  // NCCL's kernel channel events are not asked for (BackendOptions::time_kernels): once a
  // communicator has them, every task pays for them, the table's pass too (NCCL 2.28.9 reads its
  // event mask per task, but turning them off after the init and on again lost every timestamp
  // and hung the communicator's end on 2 x H200). The tails' pass times its iterations with CUDA
  // events instead (docs/iterations.md). The plugin itself is loaded only where a sweep records
  // NCCL's choice (--show-algo).
  BackendOptions options;
  for (const RunSweep& s : sweeps) options.nccl_choice = options.nccl_choice || s.measurement->records_nccl_choice();
  const bool started = run.start(
      [&](RunSetup& setup) {
        for (std::size_t i = 0; i < sweeps.size(); ++i) notes[i] = sweeps[i].measurement->prepare(world, setup);
      },
      options);
  if (!started) return run.end_failed_transport();

  // No table header says it: the version line heads a workload's own output when it runs alone.
  if (root && file == RunFile::Document) std::cout << "# " << run.setup().version_line << "\n" << std::flush;
  // Rank 0: the expected figures of this hardware for the workloads measured, said once
  // (regress/expected.hpp); each collective row, EP phase and nvlink pair is judged by them.
  std::vector<std::string> scope;
  for (const RunSweep& s : sweeps)
    for (const std::string& w : s.measurement->expected_workloads())
      if (std::find(scope.begin(), scope.end(), w) == scope.end()) scope.push_back(w);
  if (root && !scope.empty()) {
    auto expected = std::make_shared<regress::Expectations>(regress::match(
        run.expected_table(), regress::facts_of(run.setup().provenance, run.setup().transport), scope));
    if (!expected->note.empty()) std::cout << "# " << expected->note << "\n" << std::flush;
    run.setup().expected = std::move(expected);
  }
  report::Results results = run.header();
  for (const auto& note : notes) add_note(results, note);
  for (const RunSweep& s : sweeps) s.measurement->annotate(results, run.backend());
  run.keep(results);
  RunControl& control = run.control();
  std::vector<health::TrafficEvidence> evidence;
  int verdict = 0;
  DocumentReporter alone_report;  // a workload's own document, reported after the health snapshot
  for (std::size_t i = 0; i < sweeps.size() && !control.interrupted(); ++i) {
    const RunSweep& s = sweeps[i];
    if (root && !s.name.empty()) std::cout << banner(s, i, sweeps.size()) << "\n";
    Stage stage{world, run.backend(), control, run.setup(), std::cout, document};
    Outcome outcome = s.measurement->run(stage, results);
    results.wrong_total += outcome.wrong;
    verdict = combined_exit(verdict, outcome.verdict);
    evidence.insert(evidence.end(), outcome.evidence.begin(), outcome.evidence.end());
    if (outcome.report && file == RunFile::Document) {
      alone_report = std::move(outcome.report);
    } else if (outcome.report) {
      // In a suite: its report under its output, its document into the results file's documents.
      const DocumentReport reported = outcome.report({}, std::cout);
      results.wrong_total += reported.wrong;
      verdict = combined_exit(verdict, reported.verdict);
      // Its files' exit code is the sweep's own: the run's health is the results file's.
      write_reports(s, reported,
                    combined_exit({reported.wrong > 0 ? exit_code::kWrongData : exit_code::kOk,
                                   control.interrupted() ? exit_code::kInterrupted : exit_code::kOk, reported.verdict}),
                    std::cout);
      if (!reported.document.is_null()) {
        results.documents.push_back(reported.document);
        if (run.setup().keeper) run.setup().keeper->add_document(results.documents.back());
      }
    }
    if (root && control.interrupted() && i + 1 < sweeps.size()) {
      std::cout << "# Suite stopped: the " << sweeps.size() - i - 1 << " sweep(s) after this one did not run\n";
    }
  }
  results.avg_busbw_gbps = report::average_busbw(results.rows);
  return run.finish(results, std::move(evidence), verdict, alone_report, [&](const DocumentReport& reported, int code) {
    write_reports(sweeps.front(), reported, code, std::cout);
  });
}

}  // namespace

int run_sweeps(World& world, const RunRequest& request, const std::function<std::vector<RunSweep>()>& read, char** envp,
               RankContext& context) {
  return run_lifecycle(world, request, read, RunFile::Results, envp, context);
}

int run_alone(World& world, const Workload& workload, Measurement& measurement, const RunSettings& run,
              const std::vector<std::string>& arguments, char** envp, RankContext& context) {
  RunRequest request{run, arguments};
  request.timeout_s = measurement.timeout_s();
  const RunFile file = workload.schema.empty() ? RunFile::Results : RunFile::Document;
  return run_lifecycle(world, request,
                       [&] { return std::vector<RunSweep>{{"", "", &measurement, &workload, run.reports}}; }, file, envp,
                       context);
}

}  // namespace commsweep
