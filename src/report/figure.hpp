// The one result model (issue 43): every workload's results as figures, one measured value each,
// keyed by (workload, case, metric). The printers that are written once (the CSV, report/csv.hpp)
// and the regression tools (regress/observation.hpp) read figures alone; each workload converts
// its own results to them: the collectives' rows and the EP rows here (report/ owns their
// records), every other workload's document through its registry entry (run/workload.hpp:
// `schema` and `figures`), so that report/ and regress/ know no workload's document.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/result.hpp"

namespace commsweep::report {

// Which way is better for a figure: a time is better lower, a bandwidth higher.
enum class Better { Lower, Higher };
const char* better_text(Better better);  // "lower", "higher"

// One part of a figure's case: "size" = "1048576", "src" = "1", "node_a" = "vm/node0".
struct CasePart {
  std::string name;
  std::string value;
};

// How a figure varied where that is known.
struct Spread {
  // Its own timed iterations (a collective half's time with --per-iteration): cv, p50, p95,
  // p99, min, max (report::IterationStats).
  std::optional<IterationStats> iterations;
  // Per rank (index = rank), the value each rank measured: the ranks' spread (the straggler
  // rule reads them). Empty where no rank's own value is kept (the matrices).
  std::vector<double> rank_values;
  // (slowest - fastest rank) / value in percent, where known.
  std::optional<double> rank_spread_pct;
  // A collective row's two halves (out-of-place, in-place) apart, in percent: the noise one
  // row shows of itself (regress' within-row noise); 0 where there are no halves.
  double halves_pct = 0;
};

// Where a figure was taken, whatever of it applies.
struct Where {
  int ranks = 0;                   // ranks that took part; 0 where not counted
  std::vector<std::string> nodes;  // hosts or node names
  std::vector<std::string> gpus;   // "GPU 1 (0000:00:07.0)": index and PCI bus id
  std::string link;                // "nvlink"; "" where no one link is measured
};

// The identity under which a baseline judges a figure: the fields of regress::Key, as
// baseline files store them (results/schema/baseline.md). A workload whose figures are judged
// fills it; the regression tools copy it field by field and know no workload.
struct Series {
  std::string test;
  std::string type;
  std::string redop = "none";
  int root = -1;
  std::string config;  // "" for the collectives; set for EP and every matrix's pairs
  std::uint64_t size = 0;
  std::string place;
};

// What a figure is to the judge: one sample of a series is its time and its bandwidth (either
// may be missing: a latency has no bandwidth; a matrix's bandwidth gives its time from `bytes`).
// Shown: printed, never judged (algbw, EP's fabric bandwidth).
enum class Role { Shown, Time, Bandwidth };

struct Figure {
  std::string workload;         // its registry name: "collective", "ep", "nvlink", "pairs"
  std::vector<CasePart> parts;  // its case, in order
  std::string metric;           // "time", "busbw", "bandwidth", "latency"
  double value = 0;
  std::string unit;             // "us", "GB/s"
  Better better = Better::Higher;
  std::optional<std::uint64_t> wrong;  // wrong elements (or words) where checked
  Spread spread;
  Where where;
  // For the judge (Role::Shown: none).
  Series series;
  Role role = Role::Shown;
  // A bandwidth's bytes moved: its time is bytes / value (GB/s = 1e9 B/s); 0 where unknown.
  double bytes = 0;
  // The workload's own verdict on the figure's case, where it judges one (nvlink's slow pair or
  // GPU, pairs' slow pair): the HTML and Prometheus printers show it; the baseline's judge does
  // not read it (it judges against the baseline). Unset: not judged.
  std::optional<bool> slow;
  std::vector<std::string> why;  // what made it slow, one reason each
};

// One workload's document (a `pairs --json` or `nvlink --json` file, a suite's pairs sweep) as
// figures, with what the regression tools read of it besides: its setup and its ending.
struct Sheet {
  std::string workload;
  std::string schema;
  std::vector<Figure> figures;
  // compare's setup check: the nodes its keys name, sorted without repeats, and the size it
  // measured with (regress/measured_setup.hpp: "<workload>:<size>").
  std::vector<std::string> nodes;
  std::uint64_t bytes = 0;
  // The ending of a document read on its own: as a results file's (report::Results).
  Provenance provenance;
  bool complete = true;
  std::string interrupted_by;
  std::string failure;
  std::uint64_t wrong_total = 0;
  nlohmann::json health;  // null when none
  // What the printers of a sheet (report/sheet_html.hpp, report/sheet_prometheus.hpp) show
  // besides the figures: how it was judged, one sentence each ("a pair is slow below 0.80 x its
  // node's median"), and its findings ("slow pair: vm GPU 1 -> GPU 2: ...").
  std::vector<std::string> notes;
  std::vector<std::string> findings;
  // The group of each value of a matrix's axes, in the groups' order (pairs: each node's leaf):
  // the heatmaps order their rows by it and outline each group. Empty: no groups.
  std::vector<std::pair<std::string, std::string>> groups;
  // Where the heatmaps' colour turns from green to amber, as a fraction of the median (the
  // workload's slow rule); 0: 0.5.
  double slow_fraction = 0;
};

// How a workload's documents become figures: its schema ("commsweep.nvlink/1") and its reader
// (throws std::runtime_error naming the field of a malformed document). The commands that read
// results pass every registered workload's (run/workload.hpp, sheet_readers) down.
struct SheetReader {
  std::string workload;
  std::string schema;
  Sheet (*read)(const nlohmann::json& doc) = nullptr;
};
using SheetReaders = std::vector<SheetReader>;

// The reader of SCHEMA, or nullptr.
const SheetReader* find_reader(const SheetReaders& readers, const std::string& schema);

// DOC as results with their figures: a document of a reader's schema (a `pairs --json` or
// `nvlink --json` file) as one sheet, its provenance and ending those of the results; any other
// as report::results_from_json reads a results file (commsweep.results/2 and /1), each of its
// `pairs` documents (a suite's pairs sweeps) a sheet. Throws std::runtime_error naming the field
// of a malformed document ("malformed commsweep.pairs/2 document: field ..."), a document of a
// reader's family but another version, and results_from_json's refusals.
Results results_with_figures(const nlohmann::json& doc, const SheetReaders& readers);
// The same of the file at PATH (report::read_json_file), every error prefixed with PATH.
Results read_results_with_figures(const std::string& path, const SheetReaders& readers);

// The collectives' rows: per half (place out_of_place, in_place) its time (us, the judged
// time, with the half's iterations and the ranks' times), algbw and busbw (the judged
// bandwidth); the half's wrong elements on each. HOSTS: the run's per rank (Where's nodes).
std::vector<Figure> figures_of(const std::vector<ResultRow>& rows, const std::vector<std::string>& hosts = {});
// The EP rows: per phase (dispatch, combine) its time, bandwidth (DeepEP's: the judged one)
// and fabric_bandwidth.
std::vector<Figure> figures_of(const std::vector<EpRow>& rows, const std::vector<std::string>& hosts = {});
// Every figure of RESULTS to VISIT: its rows', its EP rows', then its sheets' (not copied: a
// pairs sheet of 1,000 nodes holds a million figures), in that order.
template <typename Visit>
void for_each_figure(const Results& results, Visit&& visit) {
  for (const auto& f : figures_of(results.rows, results.provenance.hosts)) visit(f);
  for (const auto& f : figures_of(results.ep_rows, results.provenance.hosts)) visit(f);
  for (const auto& sheet : results.sheets) {
    for (const auto& f : sheet->figures) visit(f);
  }
}

// The noise one collective row shows of itself: its two halves' times apart, (max - min) / min in
// percent; 0 where a half is missing.
double halves_apart_pct(double time_us, double other_half_time_us);

}  // namespace commsweep::report
