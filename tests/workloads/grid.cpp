// A test-only workload with matrix results, compiled only into commsweep_probe (never into the
// product): for every ordered pair of ranks (src, dst) one value, as nvlink has one per GPU pair.
// It proves that such a workload is one file (issues 43, 44), run alone or as a suite's sweep
// through the one measuring lifecycle (run/measure.hpp), which it gives only its measurement
// step: its results are printed, kept (alone: its --json file, a document of its own,
// commsweep.grid/1, through the one keeper of such documents, run/document_keeper.hpp: atomic
// file, partial results on a signal, complete: false; in a suite: the results file's
// documents), baselined, compared and written as CSV through the one result model
// (report/figure.hpp), which its registry entry (`schema`, `figures`) makes known to csv,
// baseline and compare, and printed as HTML and Prometheus (--html, --prometheus: the flags and
// files of every workload with a document, run/report_files.hpp, drawn by the printers written
// once over figures): no line of it is in src/report/, src/regress/, the keepers or its files.
//
// Its values are synthetic so that two runs compare identical: rank dst computes the pair's
// GB/s (10 + src + dst / 2) and rank 0 gathers each row (the gather is the measured exchange);
// --drop SRC:DST:PCT plants a drop of one pair, --pause-ms slows each row (for a signal to land
// mid-run). tests/workloads/grid_check.py runs it.
#include <chrono>
#include <functional>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "report/json.hpp"
#include "report/json_fields.hpp"
#include "run/document_keeper.hpp"
#include "run/workload.hpp"
#include "runtime/termination.hpp"

namespace commsweep {
namespace {

using nlohmann::json;

constexpr const char* kGridSchema = "commsweep.grid/1";

struct GridSettings {
  std::uint64_t bytes = 1 << 20;
  std::string drop;  // "SRC:DST:PCT"
  int pause_ms = 0;
  double timeout_s = 300;
};

const settings::Table<GridSettings>& grid_settings() {
  static const settings::Table<GridSettings> table = [] {
    settings::Table<GridSettings> t;
    t.name = "grid";
    t.settings = {
        settings::entry<GridSettings>("bytes", 0, "bytes", settings::size(), "1M", "the bytes of each pair", "grid",
                                      [](GridSettings& s, const settings::Value& v, const settings::Given&) {
                                        s.bytes = v.count;
                                      }),
        settings::entry<GridSettings>("drop", 0, "drop", settings::text(), std::nullopt,
                                      "SRC:DST:PCT: the pair SRC -> DST PCT percent lower (a planted drop)", "grid",
                                      [](GridSettings& s, const settings::Value& v, const settings::Given&) { s.drop = v.text; }),
        settings::entry<GridSettings>("pause-ms", 0, "pause_ms", settings::whole(0, 60000), "0",
                                      "milliseconds of pause after each row", "grid",
                                      [](GridSettings& s, const settings::Value& v, const settings::Given&) {
                                        s.pause_ms = static_cast<int>(v.whole);
                                      })};
    return t;
  }();
  return table;
}

// The record: every ordered pair's GB/s, -1 where not measured yet.
struct GridRun {
  report::Provenance provenance;
  std::uint64_t bytes = 0;
  std::vector<std::vector<double>> gbps;  // [src][dst]
  bool complete = true;
  std::string interrupted_by, failure;
};

std::size_t grid_measured(const GridRun& run) {
  std::size_t n = 0;
  for (const auto& row : run.gbps)
    for (double v : row) n += v >= 0 ? 1 : 0;
  return n;
}

json grid_json(const GridRun& run) {
  json pairs = json::array();
  for (std::size_t src = 0; src < run.gbps.size(); ++src)
    for (std::size_t dst = 0; dst < run.gbps[src].size(); ++dst)
      if (run.gbps[src][dst] >= 0) pairs.push_back({{"src", src}, {"dst", dst}, {"gbps", run.gbps[src][dst]}});
  const auto text_or_null = [](const std::string& s) { return s.empty() ? json() : json(s); };
  return {{"schema", kGridSchema},
          {"provenance", report::provenance_json(run.provenance)},
          {"settings", {{"bytes", run.bytes}}},
          {"ranks", run.gbps.size()},
          {"pairs", pairs},
          {"complete", run.complete},
          {"interrupted_by", text_or_null(run.interrupted_by)},
          {"failure", text_or_null(run.failure)},
          {"summary", {{"pairs", grid_measured(run)}}}};
}

// Its document as figures: per ordered pair (case src, dst) its bandwidth, judged as test
// "grid", config "rank SRC -> rank DST", size its bytes, place "exchange".
report::Sheet grid_sheet(const json& doc) {
  using namespace report::fields;
  report::Sheet sheet;
  sheet.workload = "grid";
  sheet.schema = text_of(doc, "schema", "");
  sheet.provenance = report::provenance_from_json(member(doc, "provenance", ""));
  sheet.complete = member(doc, "complete", "").get<bool>();
  sheet.interrupted_by = text_or_empty(doc, "interrupted_by");
  sheet.failure = text_or_empty(doc, "failure");
  sheet.bytes = count_of(member(doc, "settings", ""), "bytes", "settings");
  if (doc.contains("health") && doc.at("health").is_object()) sheet.health = doc.at("health");
  const auto& hosts = sheet.provenance.hosts;
  const auto host = [&](std::uint64_t rank) { return rank < hosts.size() ? hosts[rank] : std::string(); };
  const json& pairs = array_member(doc, "pairs", "");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = "pairs[" + std::to_string(i) + "]";
    const std::uint64_t src = count_of(pairs[i], "src", at), dst = count_of(pairs[i], "dst", at);
    const json& gbps = member(pairs[i], "gbps", at);
    if (!gbps.is_number()) malformed(at, "gbps", "is not a number");
    report::Figure f;
    f.workload = "grid";
    f.parts = {{"src", std::to_string(src)}, {"dst", std::to_string(dst)}};
    f.metric = "bandwidth";
    f.value = gbps.get<double>();
    f.unit = "GB/s";
    f.better = report::Better::Higher;
    f.where.ranks = 2;
    f.where.nodes = {host(src), host(dst)};
    f.series = {"grid", "-", "none", -1, "rank " + std::to_string(src) + " -> rank " + std::to_string(dst), sheet.bytes,
                "exchange"};
    f.role = report::Role::Bandwidth;
    f.bytes = static_cast<double>(sheet.bytes);
    sheet.figures.push_back(std::move(f));
  }
  const std::set<std::string> nodes(hosts.begin(), hosts.end());
  sheet.nodes.assign(nodes.begin(), nodes.end());
  return sheet;
}

// Its document, to the one keeper of a workload's own --json file (run/document_keeper.hpp).
struct GridDocument {
  using Record = GridRun;
  static constexpr const char* kUnit = "pair";
  static std::size_t measured(const GridRun& r) { return grid_measured(r); }
  static json document(const GridRun& r) { return grid_json(r); }
  static void update(GridRun& kept, const GridRun& now) { kept = now; }
};

// The planted drop: SRC, DST and the factor, or none.
struct GridDrop {
  int src = -1, dst = -1;
  double factor = 1;
};

GridDrop grid_drop(const std::string& text) {
  GridDrop d;
  if (text.empty()) return d;
  double pct = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d:%d:%lf%c", &d.src, &d.dst, &pct, &tail) != 3 || pct < 0 || pct > 100) {
    throw_usage("grid: --drop '" + text + "': expected SRC:DST:PCT, e.g. 0:1:12");
  }
  d.factor = 1 - pct / 100;
  return d;
}

// The rows: rank 0 gathers each src's row (the measured exchange), printing it to OUT and keeping
// it (KEEP: to the alone run's keeper; a suite keeps the document once it has reported).
void measure_grid(World& world, RunControl& control, const GridSettings& config, GridRun& grid, std::ostream& out,
                  const std::function<void(const GridRun&)>& keep) {
  const GridDrop drop = grid_drop(config.drop);
  const int n = static_cast<int>(world.size());
  grid.bytes = config.bytes;
  grid.gbps.assign(n, std::vector<double>(n, -1));
  const bool root = world.rank() == 0;
  if (root) out << "# grid: GB/s per ordered rank pair (rows src)\n";
  control.until_stopped([&] {
    for (int src = 0; src < n; ++src) {
      const Phase phase{"grid row " + std::to_string(src), Deadline::after(config.timeout_s)};
      control.arrive(phase);
      const int dst = static_cast<int>(world.rank());
      double mine = dst == src ? -1 : 10 + src + dst / 2.0;
      if (src == drop.src && dst == drop.dst) mine *= drop.factor;
      const std::vector<double> row = world.gather(mine, phase);
      if (root) {
        grid.gbps[src] = row;
        if (keep) keep(grid);
        std::ostringstream line;
        line << "  " << src << ":";
        for (double v : row) line << (v < 0 ? std::string("      -") : " " + std::to_string(v).substr(0, 6));
        out << line.str() << "\n" << std::flush;
      }
      if (config.pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(config.pause_ms));
    }
  });
  grid.complete = !control.interrupted();
  if (!grid.complete) grid.interrupted_by = termination_signal_name();
}

class GridMeasurement final : public MeasurementOf<GridSettings> {
 public:
  using MeasurementOf::MeasurementOf;
  void check(World& world) override {
    const GridDrop d = grid_drop(config.drop);
    if (d.src >= static_cast<int>(world.size()) || d.dst >= static_cast<int>(world.size())) {
      throw_usage("grid: --drop '" + config.drop + "' names a rank outside the job");
    }
    if (world.size() < 2) throw_usage("grid: needs 2 ranks or more");
  }
  std::string what() const override { return "grid"; }
  double timeout_s() const override { return config.timeout_s; }
  void plan_document(DocumentKeeper& keeper) const override {
    GridRun planned;
    planned.bytes = config.bytes;
    keeper.plan<GridDocument>(std::move(planned));
  }
  // Its measurement step, alone or in a suite (run/measure.hpp): each row to the keeper of its
  // own file when alone; its report, the document (into the results file's documents in a suite).
  Outcome run(Stage& stage, report::Results&) override {
    auto grid = std::make_shared<GridRun>();
    grid->provenance = stage.setup.provenance;
    measure_grid(stage.world, stage.control, config, *grid, stage.out, [&stage](const GridRun& g) {
      if (stage.document) stage.document->keep<GridDocument>(g);
    });
    Outcome outcome;
    if (stage.world.rank() != 0) return outcome;
    outcome.report = [grid](const std::vector<std::string>&, std::ostream& out) {
      out << "# grid: " << grid_measured(*grid) << " pairs\n";
      DocumentReport reported;
      reported.document = grid_json(*grid);
      return reported;
    };
    return outcome;
  }
};

std::unique_ptr<Measurement> read(const settings::Flags& flags, const settings::DocumentEntry* document,
                                  const RunSettings& run) {
  GridSettings s;
  settings::apply(grid_settings(), s, flags, document);
  s.timeout_s = run.timeout_s;
  return std::make_unique<GridMeasurement>(s);
}

std::vector<const settings::Spec*> specs() { return grid_settings().specs(); }
std::string help_intro() {
  return "Usage: mpirun -np N commsweep_probe grid [options]\n\n"
         "A test-only workload with matrix results (tests/workloads/grid.cpp): every ordered rank pair's\n"
         "GB/s, synthetic and deterministic (10 + src + dst / 2), gathered on rank 0 row by row.\n\n";
}
std::string help_end() {
  return "--json FILE: its document (schema commsweep.grid/1), read by csv, baseline and compare.\n\n" +
         exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kInterrupted, exit_code::kHealthFail,
                          exit_code::kOutputFailed});
}
std::vector<std::string> tests() { return {"grid"}; }

}  // namespace

const Workload& grid_workload() {
  static const Workload w = [] {
    Workload w;
    w.name = "grid";
    w.command = "grid";
    w.summary = "a test-only workload with matrix results: a value per rank pair (--help)";
    w.order = 91;
    w.specs = specs;
    w.sections = {{"grid", "Grid"}};
    w.read = read;
    w.help_intro = help_intro;
    w.help_end = help_end;
    w.baseline_tests = tests;
    w.schema = kGridSchema;
    w.figures = grid_sheet;
    return w;
  }();
  return w;
}

}  // namespace commsweep
