// A trivial measuring workload, compiled only into the test binary commsweep_probe (never into
// the product): the proof that a workload is one file. It times an MPI all-reduce of the ranks'
// numbers (World::sum) and checks the sum, one row per round; its settings are one table.
// tests/workloads/probe_check.py finds it in `list`, `--help`, a suite file's `kind:` and
// `commsweep schema`, and runs it.
#include <chrono>
#include <iostream>
#include <sstream>

#include "report/table.hpp"
#include "run/workload.hpp"

namespace commsweep {
namespace {

struct ProbeSettings {
  int rounds = 3;
  double timeout_s = 300;
};

const settings::Table<ProbeSettings>& probe_settings() {
  static const settings::Table<ProbeSettings> table = [] {
    settings::Table<ProbeSettings> t;
    t.name = "probe";
    t.settings = {settings::entry<ProbeSettings>(
        "rounds", 0, "rounds", settings::whole(1, 1000), "3", "timed all-reduces, one row each", "probe",
        [](ProbeSettings& s, const settings::Value& v, const settings::Given&) { s.rounds = static_cast<int>(v.whole); })};
    return t;
  }();
  return table;
}

class ProbeMeasurement final : public MeasurementOf<ProbeSettings> {
 public:
  using MeasurementOf::MeasurementOf;
  std::string what() const override { return "probe"; }
  double timeout_s() const override { return config.timeout_s; }
  Outcome run(Stage& stage, report::Results& results) override {
    World& world = stage.world;
    report::TablePrinter printer(stage.out);
    if (world.rank() == 0) printer.header({"probe", stage.setup.version_line, "nRanks " + std::to_string(world.size()), {}});
    Outcome out;
    for (int round = 0; round < config.rounds; ++round) {
      const auto start = std::chrono::steady_clock::now();
      const long long sum = world.sum(world.rank(), Phase{"probe all-reduce", Deadline::after(config.timeout_s)});
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      const auto rank_us = world.gather(us, Phase{"probe times", Deadline::after(config.timeout_s)});
      const long long n = world.size();
      report::ResultRow row{"probe", 8, 1, "int64", "sum", -1, {}, {}};
      for (report::Timing* t : {&row.out_of_place, &row.in_place}) {
        t->time_us = us;
        t->algbw_gbps = t->busbw_gbps = 8e-3 / us;
        t->wrong = sum == n * (n - 1) / 2 ? 0 : 1;
        t->slowest_time_us = us;
        t->rank_time_us = rank_us;
      }
      out.wrong += *row.out_of_place.wrong;
      if (world.rank() == 0) printer.row(row);
      results.rows.push_back(row);
    }
    if (world.rank() == 0) printer.footer("probe", out.wrong, 0);
    return out;
  }
};

std::unique_ptr<Measurement> read(const settings::Flags& flags, const settings::DocumentEntry* document,
                                  const RunSettings& run) {
  ProbeSettings s;
  settings::apply(probe_settings(), s, flags, document);
  s.timeout_s = run.timeout_s;
  return std::make_unique<ProbeMeasurement>(s);
}

std::vector<const settings::Spec*> specs() { return probe_settings().specs(); }
std::string help_intro() { return "commsweep probe: a test-only workload (tests/workloads/probe.cpp).\n\n"; }
std::string help_end() { return "Exit codes: as the collectives.\n"; }
std::vector<std::string> tests() { return {"probe"}; }

}  // namespace

const Workload& probe_workload() {
  static const Workload w = [] {
    Workload w;
    w.name = "probe";
    w.command = "probe";
    w.summary = "a test-only workload: one timed all-reduce per round (--help)";
    w.order = 90;
    w.specs = specs;
    w.sections = {{"probe", "Probe"}};
    w.read = read;
    w.help_intro = help_intro;
    w.help_end = help_end;
    w.row_tests = tests;
    w.baseline_tests = tests;
    return w;
  }();
  return w;
}

}  // namespace commsweep
