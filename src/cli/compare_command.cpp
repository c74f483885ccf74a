// `commsweep compare RESULTS --baseline FILE`: judge one run, print the verdict table, write
// the reports (only after everything was read and judged, each file atomically) and exit
// 0 pass, 1 regression, 2 bad input, 3 wrong results.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "collectives/collective_test.hpp"
#include "cli/flags.hpp"
#include "cli/commands.hpp"
#include "cli/compare_options.hpp"
#include "settings/program_options.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "health/report.hpp"
#include "output/output_file.hpp"
#include "run/health_gather.hpp"
#include "run/workload.hpp"
#include "regress/baseline_json.hpp"
#include "regress/compare.hpp"
#include "regress/history.hpp"
#include "regress/measured_setup.hpp"
#include "regress/render.hpp"
#include "regress/run_file.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

void write_reports(const CompareOptions& o, const regress::Comparison& c, const regress::Baseline& b,
                   const std::vector<regress::HistoryRun>& history) {
  // Everything is rendered before anything is written: a failing renderer leaves no file.
  std::vector<std::pair<std::string, std::string>> files;
  if (!o.markdown.empty()) files.emplace_back(o.markdown, regress::render_markdown(c));
  if (!o.html.empty()) files.emplace_back(o.html, regress::render_html(c, b, history));
  if (!o.prometheus.empty()) files.emplace_back(o.prometheus, regress::render_prometheus(c));
  if (!o.json.empty()) files.emplace_back(o.json, regress::comparison_json(c).dump(2) + "\n");
  for (const auto& [path, text] : files) output::write_output_file(path, text);
}

// The run's stored health judged again under RULES, so that an old run meets the limits in
// force, not those it was written with (health/report.hpp, rejudge); the result is what
// regress::compare reads as the run's "health".
void rejudge_health(report::Results& run, const std::string& path, const health::RuleBook& rules) {
  if (!run.health.is_object()) return;
  try {
    run.health = health::report_json(health::rejudge(run.health, rules));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

// The "schema" of a JSON file, or "" when it has none or is no JSON.
std::string schema_of(const std::string& path) {
  try {
    const auto text = read_text_file(path);
    const nlohmann::json doc = nlohmann::json::parse(text.value_or(""));
    return doc.is_object() && doc.contains("schema") && doc.at("schema").is_string() ? doc.at("schema").get<std::string>()
                                                                                    : "";
  } catch (const std::exception&) {
    return "";
  }
}

// `compare base.json --baseline night.json`: the schemas tell which file is which, so a
// refusal caused by the order says so.
std::string swap_hint(const CompareOptions& o) {
  const auto is = [](const std::string& schema, const std::string& family) { return schema.rfind(family, 0) == 0; };
  std::string baselines;
  for (const auto& r : o.results) {
    if (is(schema_of(r), "commsweep.baseline/")) baselines += (baselines.empty() ? "" : ", ") + r;
  }
  const std::string given = schema_of(o.baseline);
  const bool results_as_baseline =
      is(given, "commsweep.results/") || is(given, "commsweep.nvlink/") || is(given, "commsweep.pairs/");
  if (baselines.empty() && !results_as_baseline) return "";
  std::string hint = " (";
  if (!baselines.empty()) hint += baselines + " is a baseline";
  if (!baselines.empty() && results_as_baseline) hint += " and ";
  if (results_as_baseline) hint += "--baseline " + o.baseline + " is a results file";
  return hint + ": swap them, `commsweep compare RESULTS.json... --baseline BASELINE.json`)";
}

int bad_input(const std::string& message) {
  std::cerr << "commsweep compare: " << message << "\n";
  return exit_code::kUsage;
}

// Whether RESULTS measured what the baseline did; a difference ends compare here (exit 2)
// unless --allow-mismatch, with one line per property.
regress::SetupCheck check_setup(const CompareOptions& o, const std::vector<report::Results>& inputs,
                                const regress::Baseline& baseline) {
  std::vector<regress::MeasuredSetup> run, base;
  for (const auto& input : inputs) run.push_back(regress::measured_setup(input));
  for (const auto& source : baseline.provenance.sources) base.push_back(source.setup);
  regress::SetupCheck check = regress::check_setup(run, base, o.mode, baseline.mode);
  check.allowed = o.allow_mismatch;
  return check;
}

std::string setup_refusal(const CompareOptions& o, const regress::SetupCheck& check) {
  std::string names;
  for (const auto& r : o.results) names += (names.empty() ? "" : ", ") + r;
  std::string text = names + " did not measure what the baseline " + o.baseline +
                     " did (give --allow-mismatch to judge it anyway):";
  for (const auto& d : check.differences) text += "\n  " + regress::describe(d);
  return text;
}

}  // namespace

int run_compare_command(int argc, char** argv, char**) {
  CompareOptions o;
  const settings::Table<CompareOptions>& table = compare_settings();
  const settings::Spec* results = table.specs().back();
  apply_command_flags(table, o, parse_command_words(argc, argv, compare_flags(), *results), "", "compare");
  if (o.help) {
    std::cout << compare_help();
    return 0;
  }
  if (o.results.empty()) return bad_input("no RESULTS file given (commsweep compare --help)");
  if (o.baseline.empty()) {
    return bad_input("--baseline FILE is required: the run is judged against a baseline; make one from "
                     "earlier results with `commsweep baseline RUN.json... -o baseline.json`");
  }
  if (o.record && o.history.empty()) return bad_input("--record needs --history DIR");
  // Before anything is read: a report path that can never be written (a directory) is bad
  // input, and no report is written when one of them cannot be.
  for (const auto& [flag, path] : {std::pair<const char*, const std::string&>{"--markdown", o.markdown},
                                   {"--html", o.html}, {"--prometheus", o.prometheus}, {"--json", o.json}}) {
    if (path.empty()) continue;
    if (const std::string why = output::cannot_write_reason(path); !why.empty()) {
      return bad_input(std::string(flag) + " " + path + ": cannot write the report there: " + why);
    }
  }
  try {
    const health::RuleBook rules = health_rules(thresholds_file(o.health_thresholds));
    const report::SheetReaders readers = sheet_readers();
    std::vector<report::Results> inputs;
    for (const auto& path : o.results) {
      inputs.push_back(regress::read_run_file(path, readers));
      rejudge_health(inputs.back(), path, rules);
    }
    const report::Results results = regress::merge_runs(inputs, o.results);
    const regress::Baseline baseline = regress::read_baseline_file(o.baseline);
    const regress::SetupCheck setup = check_setup(o, inputs, baseline);
    if (!setup.differences.empty() && !setup.allowed) return bad_input(setup_refusal(o, setup));
    std::vector<regress::HistoryRun> history;
    const std::size_t collectives = collective_tests().size();  // how many `all` names
    for (const auto& input : inputs) {
      const std::string own_name = regress::history_file_name(input, collectives);
      if (o.record && std::filesystem::exists(std::filesystem::path(o.history) / own_name)) {
        return bad_input("--record: " + o.history + "/" + own_name + " exists: this run is already recorded");
      }
      if (o.history.empty()) continue;
      for (auto& h : regress::read_history(o.history, regress::test_id(input, collectives), own_name, o.history_runs, readers)) {
        history.push_back({h.name, regress::observe(h.results)});
      }
    }
    regress::Comparison c = regress::compare(results, baseline);
    c.setup = setup;
    for (const auto& path : o.results) c.results_file += (c.results_file.empty() ? "" : ", ") + path;
    c.baseline_file = o.baseline;
    write_reports(o, c, baseline, history);
    std::cout << (o.quiet ? regress::render_verdict(c) : regress::render_table(c)) << std::flush;
    for (std::size_t i = 0; o.record && i < inputs.size(); ++i) {
      std::cout << "recorded " << regress::record_in_history(o.history, inputs[i], read_text_file(o.results[i]).value_or(""), collectives) << "\n";
    }
    return c.exit_code;
  } catch (const Error& e) {
    // A report or the history's copy that could not be written, after the judgement.
    if (e.kind() != ErrorKind::Output) return bad_input(e.what() + swap_hint(o));
    std::cerr << "commsweep compare: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    return bad_input(e.what() + swap_hint(o));
  }
}

}  // namespace commsweep
