// The measuring workloads, registered as the collectives are: one file each under run/workloads/
// (<name>.cpp defining `const Workload& <name>_workload()`), the table generated from the files
// present. `commsweep` dispatches its measuring commands through it (`commsweep TEST...`, `ep`,
// `pairs`), `commsweep suite` its sweeps' `kind:`, and `list`, `--help` and `commsweep schema`
// read it: a workload added here is found by all of them with no other edit.
//
// A workload gives its name, a line of help, its settings table (settings/setting.hpp: its flags
// and suite keys) and how to read one sweep of it; the sweep (a Measurement) checks itself
// against the job, prepares what needs the backend, and runs inside the one measuring
// lifecycle (run/measure.hpp), alone or in a suite, its rows into the run's record (or its
// document, Workload::schema) and its tables to rank 0's output.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "comm/backend.hpp"
#include "health/join.hpp"
#include "report/figure.hpp"
#include "report/result.hpp"
#include "run/document_keeper.hpp"
#include "run/run_settings.hpp"
#include "run/run_setup.hpp"
#include "runtime/world.hpp"
#include "settings/setting.hpp"
#include "sweep/run_control.hpp"

namespace commsweep {

// Where a sweep runs inside a measuring run, once the backend is set up: the job, the backend,
// the control (phases' deadlines, the agreed stop on a signal), the set-up (the header lines, the
// keeper) and where rank 0 prints.
struct Stage {
  World& world;
  Backend& backend;
  RunControl& control;
  const RunSetup& setup;
  std::ostream& out;
  // A workload with a document of its own (Workload::schema) hands its record here after each
  // step (`document->keep<Form>(record)`): rank 0 of a run of it alone with --json, whose file
  // is that document (run/document_keeper.hpp); null elsewhere (a suite keeps the document once
  // it has reported).
  DocumentKeeper* document = nullptr;
};

// What one sweep measured besides the rows it added to the record.
struct Outcome {
  std::uint64_t wrong = 0;
  // A verdict of the fabric (pairs: a slow pair, exit code 10), combined with the run's other
  // outcomes by core/exit_codes.hpp's precedence; 0 when none.
  int verdict = 0;
  std::vector<health::TrafficEvidence> evidence;  // rank 0's, joined with the health findings
  // Rank 0, a workload with a document of its own (Workload::schema): its analysis printed and
  // its files written, its document made, once the lifecycle calls it: at once in a suite (the
  // document into the results' documents), after the health snapshot when it runs alone (its
  // document is the --json file and names the health FAILs). Null for a workload of rows.
  DocumentReporter report;
};

// One sweep of a workload, read from the command line or a suite's entry.
class Measurement {
 public:
  virtual ~Measurement() = default;
  // The usage checks that need the job (a root outside it, experts that do not divide by the
  // ranks, a pairs job of one node), on every rank, before anything runs or is printed.
  virtual void check(World& world) { (void)world; }
  // Once the backend is set up, before the preamble (EP: the NCCL version policy's decisions,
  // recorded in SETUP). Returns a note for the record ("" for none).
  virtual std::string prepare(World& world, RunSetup& setup) {
    (void)world;
    (void)setup;
    return "";
  }
  // Whether it records NCCL's choice per row (the collectives' --show-algo): the nccl backend then
  // loads commsweep's NCCL profiler plugin, which costs a loaded NCCL time even while silent
  // (docs/iterations.md), so that it is loaded only where asked for.
  virtual bool records_nccl_choice() const { return false; }
  // What the record's header says of this sweep, on BACKEND (the collectives: provenance.buffers
  // and provenance.timer).
  virtual void annotate(report::Results& results, const Backend& backend) const {
    (void)results;
    (void)backend;
  }
  // What a results file records once for all its rows ({"buffers", "cold"}): the sweeps of a
  // suite must agree on each.
  virtual std::vector<std::pair<std::string, std::string>> recorded_once() const { return {}; }
  // Its tests, for a suite's banner: "all_reduce,all_gather", "ep".
  virtual std::string what() const = 0;
  // The workloads whose figures results/expected/ may hold an entry of (regress/expected.hpp):
  // a collective's tests, "ep", "nvlink"; none where its figures have no expectation (pairs).
  virtual std::vector<std::string> expected_workloads() const { return {}; }
  // The seconds its phases may take (-T, or the suite sweep's "timeout").
  virtual double timeout_s() const = 0;
  // A workload with a document of its own (Workload::schema), run alone, rank 0 with --json,
  // after check(): its record as planned, to KEEPER (`keeper.plan<Form>(record)`), so that a
  // signal during the set-up leaves a whole document saying nothing was measured.
  virtual void plan_document(DocumentKeeper& keeper) const { (void)keeper; }
  // The measurement step, in the one lifecycle (run/measure.hpp), alone or in a suite: the
  // tables on rank 0, the rows into RESULTS (complete on rank 0); a workload with a document of
  // its own hands its record to stage.document as it measures and returns its report.
  virtual Outcome run(Stage& stage, report::Results& results) = 0;
  // Workload::offline_flag given: what runs without MPI (pairs --plan); returns the exit code.
  virtual int run_offline() { return 0; }
};

// A measurement holding its workload's config (what read() applied its table to).
template <typename Config>
class MeasurementOf : public Measurement {
 public:
  explicit MeasurementOf(Config c) : config(std::move(c)) {}
  Config config;
};
// The config of M, a MeasurementOf<Config> (a logic error otherwise): for tests and the suite.
template <typename Config>
const Config& config_of(const Measurement& m) {
  return dynamic_cast<const MeasurementOf<Config>&>(m).config;
}

// A workload's entry in the registry, filled by name in its file (run/workloads/ep.cpp):
//   static const Workload w = [] { Workload w; w.name = "ep"; w.command = "ep"; ...; return w; }();
// The first six fields and help_end are required (workloads() refuses an entry without them);
// the rest default to none.
struct Workload {
  std::string_view name;     // its suite kind, and its command unless `command` is empty
  std::string_view command;  // "ep", "pairs"; "" for the collectives (`commsweep TEST...`); its
                             // usage errors on the command line begin "COMMAND: "
  std::string_view summary;  // one line for `commsweep --help` and `commsweep list`
  int order = 0;             // its place in --help, `list` and the schema
  // Its settings table (specs of settings::Table) and --help's sections of it: section name
  // and title, in order. A suite's -c N reaches the key "check" where the table has one
  // (clamped to its largest value: ep's check is on or off).
  std::vector<const settings::Spec*> (*specs)() = nullptr;
  std::vector<std::pair<std::string_view, std::string_view>> sections;
  // One sweep: FLAGS (the command line) over DOCUMENT's keys (a suite's entry, or null) over
  // the defaults, RUN the run's settings (its timeout the sweep's). Throws a usage Error naming
  // the flag or the file, line and key.
  std::unique_ptr<Measurement> (*read)(const settings::Flags& flags, const settings::DocumentEntry* document,
                                       const RunSettings& run) = nullptr;
  // --help's text before the option sections and after them.
  std::string (*help_intro)() = nullptr;
  std::string (*help_end)() = nullptr;
  // The `test` names its results carry, for the schemas: in `rows` (the collectives' names),
  // and as a baseline's test (those, and "ep" for the ep rows). Null: none.
  std::vector<std::string> (*row_tests)() = nullptr;
  std::vector<std::string> (*baseline_tests)() = nullptr;
  // A presence flag that makes the command run without MPI (pairs: "plan", nvlink: "judge"), or "".
  std::string_view offline_flag = {};
  // Its own --json document, where its results are not a results file's rows (pairs, nvlink):
  // the document's schema ("commsweep.nvlink/1") and how one becomes figures, the one result model
  // (report/figure.hpp) through which csv, baseline and compare read it (sheet_readers). "" and
  // null for the collectives and ep, whose rows report/figure.hpp converts. Run alone, such a
  // workload's --json file is that document (run/measure.hpp's run_alone, DocumentKeeper); in a
  // suite, it goes into the results file's documents.
  std::string_view schema = {};
  report::Sheet (*figures)(const nlohmann::json& doc) = nullptr;
};

// Every workload, in `order`; by suite kind, and by command word (nullptr when there is none).
const std::vector<const Workload*>& workloads();
const Workload* find_workload(std::string_view kind);
const Workload* find_command_workload(std::string_view command);
// The workload of `commsweep TEST...` (the one whose command is empty).
const Workload& default_workload();
// The flags and keys W takes besides its table's and the run's: --html and --prometheus
// (run/report_files.hpp) where it has a document of its own (`schema`), none otherwise.
std::vector<const settings::Spec*> document_specs(const Workload& w);
// W's report files: FLAGS over DOCUMENT's keys (a suite's entry, or null); none where W has no
// document of its own.
ReportFiles read_report_files(const Workload& w, const settings::Flags& flags, const settings::DocumentEntry* document);
// The keys one entry of W takes (a suite's sweep, `ep --suite FILE`): its table's, its
// document's (document_specs), then the run's ("timeout").
std::vector<const settings::Spec*> entry_specs(const Workload& w);
// The figure readers of every workload with a document of its own (`schema` and `figures`), for
// the commands that read results files (csv, baseline, compare) to pass down to report/ and
// regress/, which know no workload.
report::SheetReaders sheet_readers();

}  // namespace commsweep
