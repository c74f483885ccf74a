// `commsweep csv FILE... [-o OUT]`: every measurement of results files, one CSV row each, through
// the one result model (report/figure.hpp, report/csv.hpp): collectives, EP and suites
// (commsweep.results/2 and /1), and every registered workload's own --json document (pairs,
// nvlink) through its reader (run/workload.hpp, sheet_readers).
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "output/output_file.hpp"
#include "report/csv.hpp"
#include "run/workload.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

struct CsvOptions {
  std::vector<std::string> files;
  std::string output;
  bool help = false;
};

settings::Table<CsvOptions> make_csv_table() {
  using settings::Given;
  using settings::Value;
  settings::Spec files = settings::command_flag("files", settings::list_of(settings::text(), false), std::nullopt, "");
  files.words = -1;
  return {"csv", {
      settings::entry_of<CsvOptions>(
          settings::shared::output("write the CSV here (atomically: a reader sees the old file or the whole new one); "
                                   "default: standard output"),
          settings::into(&CsvOptions::output)),
      settings::entry_of<CsvOptions>(settings::shared::help(),
                                     settings::into(&CsvOptions::help)),
      settings::entry_of<CsvOptions>(files, [](CsvOptions& o, const Value& v, const Given&) {
        for (const auto& item : v.items) o.files.push_back(item.text);
      }),
  }, nullptr};
}

const settings::Table<CsvOptions>& csv_settings() {
  static const settings::Table<CsvOptions> table = make_csv_table();
  return table;
}

std::string csv_help(const po::options_description& d) {
  std::ostringstream out;
  out << d << "\n"
      << "Every measurement of the FILEs as CSV, one row per figure, the header first, for a spreadsheet or\n"
         "Python's csv.DictReader. FILE: any commsweep --json file: a collective sweep, an EP sweep or a\n"
         "suite (commsweep.results/2, and /1 of earlier releases), a pairs run (commsweep.pairs/2), an\n"
         "nvlink run (commsweep.nvlink/1). A figure is one measured value: a collective half's time, algbw\n"
         "and busbw; an EP phase's time, bandwidth and fabric_bandwidth; a node pair's bandwidth and its\n"
         "slowest rail's time; a GPU pair's bandwidth per copy test and its latency, a GPU's all_to_one and\n"
         "one_to_all.\n\n"
         "Columns: file, workload, case (its parts in one field, \"test=all_reduce type=float ...\"), one\n"
         "column per case part (test, type, redop, root, size, place; impl, routing, hidden, topk, experts,\n"
         "tokens, dtype, phase; host, src, dst, gpu; node_a, node_b; empty where a row has no such part),\n"
         "metric, value, unit (us, GB/s), better (lower, higher), wrong (elements or words, empty: not\n"
         "checked), ranks, nodes, gpus, link (where it was taken), iterations, cv_pct, p50_us, p95_us,\n"
         "p99_us, min_us, max_us (its own timed iterations, where kept), rank_spread_pct ((slowest -\n"
         "fastest rank) / value). RFC 4180: a field holding a comma, a quote or a line break is quoted;\n"
         "lines end in CRLF. docs/output.md (\"CSV\") shows an example.\n\n"
         "Examples:\n"
         "  commsweep csv results.json > results.csv\n"
         "  commsweep csv night/*.json nvlink.json pairs.json -o night.csv\n"
         "  python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' night.csv\n\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kOutputFailed})
      << "2: a FILE unreadable, not JSON, of a schema no workload reads, or malformed (the message names\n"
         "the file and the field): nothing is written. 11: OUT could not be written (a full disk, a\n"
         "folder that does not exist): what was at OUT is left as it was.\n";
  return out.str();
}

}  // namespace

int run_csv_command(int argc, char** argv, char**) {
  CsvOptions o;
  const auto flags = settings::options_of(csv_settings(), "commsweep csv FILE... [-o OUT]");
  apply_command_flags(csv_settings(), o, parse_command_words(argc, argv, flags, *csv_settings().specs().back()), "",
                      "csv");
  if (o.help) {
    std::cout << csv_help(flags);
    return exit_code::kOk;
  }
  if (o.files.empty()) throw_usage("no FILE given (commsweep csv --help)");
  const report::SheetReaders readers = sheet_readers();
  std::vector<report::Results> read;
  read.reserve(o.files.size());
  for (const auto& path : o.files) {
    try {
      read.push_back(report::read_results_with_figures(path, readers));
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw_usage(e.what());
    }
  }
  std::vector<report::CsvSource> sources;
  for (std::size_t i = 0; i < read.size(); ++i) sources.push_back({o.files[i], &read[i]});
  std::ostringstream text;
  report::write_csv(text, sources);
  if (o.output.empty()) {
    std::cout << text.str() << std::flush;
    if (!std::cout) throw Error(ErrorKind::Output, "standard output: the CSV could not be written; output not written");
    return exit_code::kOk;
  }
  try {
    output::write_output_file(o.output, text.str());
  } catch (const std::runtime_error& e) {
    throw Error(ErrorKind::Output, std::string("-o ") + o.output + ": " + e.what() + "; output not written");
  }
  return exit_code::kOk;
}

}  // namespace commsweep
