#include "cli/compare_options.hpp"

#include <optional>
#include <sstream>
#include <utility>

#include "core/exit_codes.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {

using settings::Given;
using settings::Value;

settings::Table<CompareOptions> make_compare_table() {
  using O = CompareOptions;
  settings::Spec results = settings::command_flag("results", settings::list_of(settings::text(), false), std::nullopt, "");
  results.words = -1;
  return {"compare", {
      settings::entry_into(settings::command_flag("baseline", settings::text(), std::nullopt,
                                "baseline file (schema commsweep.baseline/1; make one with commsweep baseline)"),
                   &O::baseline),
      settings::entry_into(settings::command_flag("history", settings::text(), std::nullopt,
                                "results history folder: earlier runs drawn in the HTML plots"),
                   &O::history),
      settings::entry_of<O>(settings::command_flag("history-runs", settings::whole(0, 1000000), "10",
                                         "at most this many earlier runs in the plots"),
                            [](O& o, const Value& v, const Given&) { o.history_runs = static_cast<std::size_t>(v.whole); }),
      settings::switch_into("record",
                     "after judging, add RESULTS to --history as <UTC start>-<test id>.json (never overwrites)",
                     &O::record),
      settings::entry_into(settings::command_flag("markdown", settings::text(), std::nullopt, "write a markdown summary here"),
                   &O::markdown),
      settings::entry_into(settings::shared::html("write a self-contained HTML report with plots here"), &O::html),
      settings::entry_into(settings::shared::prometheus(), &O::prometheus),
      settings::entry_into(settings::shared::json("write the verdicts as JSON (schema commsweep.compare/3) here"), &O::json),
      settings::entry_into(settings::shared::mode(std::nullopt, "the fabric mode RESULTS were taken in (as baseline --mode: "
                                                        "nvlink, ib, roce-sriov, ...): checked against the baseline's"),
                   &O::mode),
      settings::switch_into("allow-mismatch",
                     "judge RESULTS against a baseline that measured something else (backend, ranks, nodes, GPUs per "
                     "node, shape, mode, buffers, timer): the differences are said before the verdicts",
                     &O::allow_mismatch),
      settings::switch_into("quiet", "print only the verdict (the counts and the exit line), not the table", &O::quiet),
      settings::entry_into(settings::shared::health_thresholds(
                       "judge the runs' stored health snapshots with the limits of this YAML file (default: "
                       "COMMSWEEP_HEALTH_THRESHOLDS, else the built-in table; docs/health.md)"),
                   &O::health_thresholds),
      settings::entry_of<O>(settings::shared::help(),
                            settings::into(&O::help)),
      settings::entry_into(results, &O::results),
  }, nullptr};
}

}  // namespace

const settings::Table<CompareOptions>& compare_settings() {
  static const settings::Table<CompareOptions> table = make_compare_table();
  return table;
}

po::options_description compare_flags() {
  return settings::options_of(compare_settings(), "commsweep compare RESULTS... --baseline FILE [options]");
}

std::string compare_help() {
  std::ostringstream out;
  out << compare_flags() << "\n"
      << "RESULTS: one or more commsweep --json files of one night on one job (e.g. the collectives'\n"
         "sweep and the EP sweep, the files of commsweep nvlink and commsweep pairs); they are judged\n"
         "together, as one run, against one baseline.\n"
         "Judges every test, type, operator, root and size of RESULTS (a commsweep --json file) against\n"
         "the baseline's median, with the baseline's rules: busbw (time below rules.small_message_bytes)\n"
         "worse by rules.warn_pct is WARN, by rules.fail_pct FAIL; a change inside the run-to-run spread\n"
         "(the baseline's, or the cycles' of RESULTS, capped at rules.max_noise_pct) is SAME; a FAIL by\n"
         "change whose change is inside the noise the run showed of itself (cv, p95 over p50, its cycles\n"
         "apart, its halves' relation moved from the baseline's) or the baseline's runs' spread,\n"
         "uncapped, is NOISY, not judged; busbw below a floor, a size or test missing\n"
         "from RESULTS, and any wrong element FAIL; a measurement the baseline lacks is NOT_JUDGED, counted\n"
         "apart (never a PASS, never a regression by itself). Ranks whose time is an outlier among the\n"
         "ranks' are named as stragglers with their host. nvlink files: per host, ordered GPU pair (index\n"
         "and PCI bus id) and copy test the GB/s, the pair's latency, each GPU's all-to-one and\n"
         "one-to-all; pairs files: per node pair the GB/s each way; each judged alone (no halves).\n\n"
         "RESULTS must have measured what the baseline did: the same backend, ranks, nodes, GPUs per node,\n"
         "shape, buffers and timer, the hosts and bytes of nvlink and pairs files (and --mode, when given,\n"
         "the baseline's mode). Otherwise compare refuses (exit 2) with one line per property naming\n"
         "both values; --allow-mismatch judges it anyway and says what differs before the verdicts. What\n"
         "the baseline does not record (baselines written before it) is said as not checked. The hardware\n"
         "health snapshots stored in RESULTS are judged again with the rules in force (the built-in table,\n"
         "or --health-thresholds): a new WARN or FAIL finding is a regression, INFO never is; each is\n"
         "printed with the rule and limit that made it.\n\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kWrongData, exit_code::kOutputFailed,
                          exit_code::kRegression, exit_code::kNoisy})
      << "0: pass (warnings allowed). 2: an unreadable or corrupt file, another schema version, a\n"
         "baseline that measured something else, bad flags: nothing is written. 8: RESULTS hold wrong\n"
         "elements (#wrong > 0). 9: a FAIL, or a new health WARN or FAIL. 11: a report or the\n"
         "history's copy could not be written. 12: a NOISY and no FAIL: a change the run's own noise\n"
         "could explain, not judged (rerun, or raise -n).\n";
  return out.str();
}

}  // namespace commsweep
