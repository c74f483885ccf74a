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
#include "core/text_file.hpp"
#include "output/output_file.hpp"
#include "regress/baseline_json.hpp"
#include "regress/compare.hpp"
#include "regress/history.hpp"
#include "regress/render.hpp"
#include "report/json.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

struct CompareOptions {
  std::vector<std::string> results;
  std::string baseline, history, markdown, html, prometheus, json;
  bool record = false;
  bool quiet = false;
  std::size_t history_runs = 10;
};

po::options_description compare_flags(CompareOptions& o) {
  po::options_description d("commsweep compare RESULTS... --baseline FILE [options]");
  d.add_options()
      ("baseline", po::value(&o.baseline), "baseline file (schema commsweep.baseline/1; make one with commsweep baseline)")
      ("history", po::value(&o.history), "results history folder: earlier runs drawn in the HTML plots")
      ("history-runs", po::value(&o.history_runs)->default_value(10), "at most this many earlier runs in the plots")
      ("record", po::bool_switch(&o.record), "after judging, add RESULTS to --history as <UTC start>-<test id>.json (never overwrites)")
      ("markdown", po::value(&o.markdown), "write a markdown summary here")
      ("html", po::value(&o.html), "write a self-contained HTML report with plots here")
      ("prometheus", po::value(&o.prometheus), "write Prometheus text exposition here (node-exporter textfile collector: *.prom)")
      ("json", po::value(&o.json), "write the verdicts as JSON (schema commsweep.compare/1) here")
      ("quiet", po::bool_switch(&o.quiet), "no verdict table on stdout")
      ("help,h", "show this help");
  return d;
}

std::string compare_help(const po::options_description& d) {
  std::ostringstream out;
  out << d << "\n"
      << "RESULTS: one or more commsweep --json files of one night on one job (e.g. the collectives'\n"
         "sweep and the EP sweep); they are judged together, as one run, against one baseline.\n"
         "Judges every test, type, operator, root and size of RESULTS (a commsweep --json file) against\n"
         "the baseline's median, with the baseline's rules: busbw (time below rules.small_message_bytes)\n"
         "worse by rules.warn_pct is WARN, by rules.fail_pct FAIL; a change inside the run-to-run spread\n"
         "(the baseline's, or the cycles' of RESULTS) is SAME; busbw below a floor, a size or test missing\n"
         "from RESULTS, and any wrong element FAIL. Ranks whose time is an outlier among the ranks' are\n"
         "named as stragglers with their host.\n\n"
         "Exit codes: 0 pass (warnings allowed), 1 regression, 2 bad input (unreadable or corrupt file,\n"
         "another schema version, bad flags: nothing is written), 3 wrong results (#wrong > 0).\n";
  return out.str();
}

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

int bad_input(const std::string& message) {
  std::cerr << "commsweep compare: " << message << "\n";
  return regress::compare_exit::kBadInput;
}

}  // namespace

int run_compare_command(int argc, char** argv, char**) {
  CompareOptions o;
  auto flags = compare_flags(o);
  po::options_description all;
  all.add(flags).add_options()("results", po::value(&o.results)->composing());
  po::positional_options_description positional;
  positional.add("results", -1);
  const po::variables_map vm =
      parse_flags(argc, argv, 2, all, positional, "", " (commsweep compare --help)");
  if (vm.count("help")) {
    std::cout << compare_help(flags);
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
    std::vector<report::Results> inputs;
    for (const auto& path : o.results) inputs.push_back(report::read_results_file(path));
    const report::Results results = regress::merge_runs(inputs, o.results);
    const regress::Baseline baseline = regress::read_baseline_file(o.baseline);
    std::vector<regress::HistoryRun> history;
    const std::size_t collectives = collective_tests().size();  // how many `all` names
    for (const auto& input : inputs) {
      const std::string own_name = regress::history_file_name(input, collectives);
      if (o.record && std::filesystem::exists(std::filesystem::path(o.history) / own_name)) {
        return bad_input("--record: " + o.history + "/" + own_name + " exists: this run is already recorded");
      }
      if (o.history.empty()) continue;
      for (auto& h : regress::read_history(o.history, regress::test_id(input, collectives), own_name, o.history_runs)) {
        history.push_back({h.name, regress::observe(h.results)});
      }
    }
    regress::Comparison c = regress::compare(results, baseline);
    for (const auto& path : o.results) c.results_file += (c.results_file.empty() ? "" : ", ") + path;
    c.baseline_file = o.baseline;
    write_reports(o, c, baseline, history);
    if (!o.quiet) std::cout << regress::render_table(c) << std::flush;
    for (std::size_t i = 0; o.record && i < inputs.size(); ++i) {
      std::cout << "recorded " << regress::record_in_history(o.history, inputs[i], read_text_file(o.results[i]).value_or(""), collectives) << "\n";
    }
    return c.exit_code;
  } catch (const std::exception& e) {
    return bad_input(e.what());
  }
}

}  // namespace commsweep
