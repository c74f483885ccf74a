// `commsweep baseline RUN... -o FILE`: the median and the run-to-run spread of every
// measurement over N runs, with the default rules (and floors given here), written atomically.
#include <boost/program_options.hpp>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "core/strings.hpp"
#include "output/output_file.hpp"
#include "regress/baseline_json.hpp"
#include "regress/baseline_runs.hpp"
#include "regress/compare.hpp"
#include "regress/run_file.hpp"
#include "run/provenance.hpp"
#include "run/workload.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"
#include "version.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

struct BaselineOptions {
  std::vector<std::string> runs, floors;
  std::string output, shape, mode = "default", note;
  double warn_pct = 5, fail_pct = 10, max_noise_pct = 25, latency_floor_pct = 30;
  std::string small_bytes = "64K";
  bool allow_incomplete = false, allow_mixed = false, help = false;
};


// A percentage (any number; make_baseline checks them against each other) into FIELD.
settings::Setting<BaselineOptions> baseline_pct(const char* flag, const char* default_text, std::string help,
                                                double BaselineOptions::*field) {
  return settings::entry_into(
      settings::command_flag(flag, settings::number(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()),
                             default_text, std::move(help)),
      field);
}

settings::Table<BaselineOptions> make_baseline_table() {
  using O = BaselineOptions;
  settings::Spec floor = settings::command_flag("floor", settings::list_of(settings::text(), false), std::nullopt,
                                       "an absolute floor TEST[:TYPE]:FROM_SIZE:GBPS, e.g. all_reduce:1G:330 (repeatable)");
  floor.repeatable = true;
  settings::Spec run = settings::command_flag("run", settings::list_of(settings::text(), false), std::nullopt, "");
  run.words = -1;
  return {"baseline", {
      settings::entry_into(settings::shared::output("write the baseline here (atomically)"), &O::output),
      settings::entry_into(settings::shared::shape("shape name, e.g. h200x4 (default: from the runs' GPUs and ranks)"), &O::shape),
      settings::entry_into(settings::shared::mode("default", "fabric mode, e.g. nvlink, ib, roce, roce-sriov"), &O::mode),
      baseline_pct("warn-pct", "5", "rules.warn_pct: worse by this much is WARN", &O::warn_pct),
      baseline_pct("fail-pct", "10", "rules.fail_pct: worse by this much is FAIL", &O::fail_pct),
      baseline_pct("max-noise-pct", "25",
                   "rules.max_noise_pct: the run-to-run spread excuses a change (SAME) up to this much", &O::max_noise_pct),
      baseline_pct("latency-noise-floor-pct", "30",
                   "rules.latency_noise_floor_pct: below --small-bytes a time is never judged finer than this",
                   &O::latency_floor_pct),
      settings::entry_into(settings::command_flag("small-bytes", settings::text(), "64K",
                                  "rules.small_message_bytes: below it the time is judged, from it busbw"),
                    &O::small_bytes),
      settings::switch_into("allow-incomplete",
                      "use runs that ended early (complete: false): their missing sizes are simply absent",
                      &O::allow_incomplete),
      settings::switch_into("allow-mixed",
                      "use runs taken with different settings (backend, ranks, buffers, arguments) together",
                      &O::allow_mixed),
      settings::entry_into(floor, &O::floors),
      settings::entry_into(settings::command_flag("note", settings::text(), std::nullopt,
                                  "a sentence for provenance.note: where and how the runs were taken"),
                    &O::note),
      settings::entry_of<O>(settings::shared::help(), settings::into(&O::help)),
      settings::entry_into(run, &O::runs),
  }, nullptr};
}

const settings::Table<BaselineOptions>& baseline_settings() {
  static const settings::Table<BaselineOptions> table = make_baseline_table();
  return table;
}

regress::Floor floor_from(const std::string& text) {
  const auto p = split(text, ':');
  if (p.size() != 3 && p.size() != 4) throw_usage("--floor '" + text + "': expected TEST[:TYPE]:FROM_SIZE:GBPS");
  regress::Floor f;
  f.test = p[0];
  if (p.size() == 4) f.type = p[1];
  f.from_size_bytes = parse_size(p[p.size() - 2], "--floor");
  try {
    f.min_busbw_gbps = std::stod(p.back());
  } catch (const std::exception&) {
    throw_usage("--floor '" + text + "': '" + p.back() + "' is not a number of GB/s");
  }
  return f;
}

regress::Baseline make_baseline(const BaselineOptions& o, const std::vector<report::Results>& runs,
                                const std::string& command_line) {
  regress::Baseline b;
  b.shape = o.shape;
  b.mode = o.mode;
  for (std::size_t i = 0; i < runs.size() && b.shape.empty(); ++i) b.shape = regress::shape_of(runs[i].provenance);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (o.shape.empty() && regress::shape_of(runs[i].provenance) != b.shape) {
      throw_usage(o.runs[i] + ": shape " + regress::shape_of(runs[i].provenance) + " differs from " + b.shape +
                  " (" + o.runs[0] + "); give --shape to mix them");
    }
    const auto& p = runs[i].provenance;
    b.provenance.sources.push_back({o.runs[i], p.started_at, p.backend, p.git_hash, p.hosts,
                                    regress::measured_setup(runs[i])});
  }
  b.provenance = {utc_now_iso8601(), command_line, kVersion, kGitHash, o.note, b.provenance.sources};
  b.rules.warn_pct = o.warn_pct;
  b.rules.fail_pct = o.fail_pct;
  if (o.fail_pct < o.warn_pct) throw_usage("--fail-pct must not be smaller than --warn-pct");
  b.rules.max_noise_pct = o.max_noise_pct;
  b.rules.latency_noise_floor_pct = o.latency_floor_pct;
  b.rules.small_message_bytes = parse_size(o.small_bytes, "--small-bytes");
  for (const auto& f : o.floors) b.rules.floors.push_back(floor_from(f));
  b.entries = regress::baseline_entries(runs);
  return b;
}

}  // namespace

int run_baseline_command(int argc, char** argv, char**) {
  BaselineOptions o;
  const auto flags = settings::options_of(baseline_settings(), "commsweep baseline RUN... -o FILE [options]");
  apply_command_flags(baseline_settings(), o, parse_command_words(argc, argv, flags, *baseline_settings().specs().back()),
                      "", "baseline");
  if (o.help) {
    std::cout << flags << "\nMakes a baseline (schema commsweep.baseline/1, results/schema/baseline.md) from one or\n"
                 "more results files, and the --json files of commsweep nvlink and commsweep pairs (per GPU pair\n"
                 "and copy test, per node pair): per measurement the median and the spread ((max - min) /\n"
                 "median) over every sample of every run (each cycle of -N counts), at least the noise each row\n"
                 "shows of itself (its two halves, out-of-place and in-place), so that one run gives a spread\n"
                 "too; 5 runs or more are recommended. Runs that ended early or were taken with other settings\n"
                 "are refused (--allow-incomplete, --allow-mixed).\n"
              << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kOutputFailed});
    return 0;
  }
  if (o.runs.empty()) throw_usage("no RUN files given (commsweep baseline --help)");
  if (o.output.empty()) throw_usage("-o/--output FILE is required");
  if (const std::string why = output::cannot_write_reason(o.output); !why.empty()) {
    throw_usage("-o/--output " + o.output + ": cannot write the baseline there: " + why);
  }
  std::vector<report::Results> runs;
  std::string command_line = "commsweep";
  for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
  try {
    const report::SheetReaders readers = sheet_readers();
    for (const auto& r : o.runs) runs.push_back(regress::read_run_file(r, readers));
    regress::require_comparable_runs(o.runs, runs, o.allow_incomplete, o.allow_mixed);
    const regress::Baseline b = make_baseline(o, runs, command_line);
    output::write_output_file(o.output, regress::to_json(b).dump(2) + "\n");
    std::cout << "baseline " << o.output << ": " << b.shape << " " << b.mode << ", "
              << count_of(b.entries.size(), "measurement") << " from " << count_of(runs.size(), "run") << "\n";
    if (runs.size() < regress::kRecommendedBaselineRuns) {
      std::size_t matrices = 0;
      for (const auto& e : b.entries) matrices += e.key.is_matrix() ? 1 : 0;
      // A matrix has no halves whose relation would show its noise: its spread is 0.
      const std::string spread = matrices == 0 ? "how much these runs and their rows' two halves moved apart (0 from one run)"
                                 : matrices == b.entries.size()
                                     ? "0 (an nvlink or pairs file has no halves to show its noise)"
                                     : "how much these runs and their rows' two halves moved apart (0 from one run, "
                                       "and for the nvlink and pairs entries, which have none)";
      std::cout << "note: " << regress::kRecommendedBaselineRuns << " runs or more are recommended: with "
                << runs.size() << ", each spread is " << spread << ", not yet how much one run differs from the next\n";
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw_usage(e.what());
  }
  return 0;
}

}  // namespace commsweep
