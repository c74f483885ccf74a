// `commsweep expected [--expected FILE] [--json OUT]`: the expected figures every measuring run
// judges its rows by (regress/expected.hpp): the built-in results/expected/*.yaml, with a user's
// file over them, one line per entry and size, or as JSON for a machine.
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "core/sizes.hpp"
#include "output/output_file.hpp"
#include "regress/expected.hpp"
#include "run/expected_run.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {
namespace po = boost::program_options;
namespace {

struct ExpectedOptions {
  std::string expected, json;
  bool help = false;
};

settings::Table<ExpectedOptions> make_expected_table() {
  return {"expected", {
      settings::entry_of<ExpectedOptions>(
          settings::shared::expected("list this YAML file's entries over the built-in ones (default: "
                                     "COMMSWEEP_EXPECTED, else the built-in ones alone)"),
          settings::into(&ExpectedOptions::expected)),
      settings::entry_of<ExpectedOptions>(
          settings::shared::json("write the entries as JSON to this file (- for standard output) instead of the lines"),
          settings::into(&ExpectedOptions::json)),
      settings::entry_of<ExpectedOptions>(settings::shared::help(), settings::into(&ExpectedOptions::help)),
  }, nullptr};
}

const settings::Table<ExpectedOptions>& expected_settings() {
  static const settings::Table<ExpectedOptions> table = make_expected_table();
  return table;
}

std::string expected_number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", x);
  return buffer;
}

std::string nodes_text(const regress::ExpectedEntry& e) {
  return std::to_string(e.nodes) + (e.more_nodes ? "+" : "");
}

// "WARN<0.93 FAIL<0.85" at SIZE.
std::string floors_at(const regress::ExpectedEntry& e, std::uint64_t size) {
  return "WARN<" + expected_number(regress::ratio_at(e.warn_below, size)) +
         " FAIL<" + expected_number(regress::ratio_at(e.fail_below, size));
}

// Where ENTRY's figure comes from, short: "published URL" or "own run MACHINE DATE COMMIT (URL)".
std::string source_short(const regress::ExpectedEntry& e) {
  if (e.source.kind == "published") return "published " + e.source.url;
  const std::string machine = e.source.machine.substr(0, e.source.machine.find(' '));
  return "own run " + machine + " " + e.source.date + " " + e.source.commit + " (" + e.source.url + ")";
}

bool sized_in_tokens(const regress::ExpectedEntry& e);
std::string expected_size_text(const regress::ExpectedEntry& e, std::uint64_t size);

// One line per entry, columns aligned: its figure at its largest listed size and the floors
// there (--json has every size, the floors' steps, the shape and the whole citation).
std::string lines_of(const regress::ExpectedTable& table) {
  std::vector<std::vector<std::string>> rows{
      {"id", "gpu", "gpus", "fabric", "nvls", "workload", "metric", "size", "value", "floors", "sizes", "source"}};
  for (const auto& e : table.entries()) {
    const auto& [size, value] = e.points.back();
    std::string sizes = std::to_string(e.points.size()) + (e.shape.empty() ? "" : "+shape");
    if (e.from > 0) sizes += " from " + compact_size(e.from);
    rows.push_back({e.id, e.gpu == "any" ? "any GPU" : e.gpu, (e.gpus == 0 ? "any" : std::to_string(e.gpus)) + "x" + nodes_text(e),
                    e.fabric, e.nvls + (e.backend != "nccl" ? " (" + e.backend + ")" : ""), e.workload, e.metric,
                    expected_size_text(e, size), expected_number(value), floors_at(e, size), sizes, source_short(e)});
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::ostringstream out;
  out << "# Expected figures in force (" << table.origin() << "; docs/expected.md); sizes: how many are listed "
      << "(+shape: an own curve below them); commsweep expected --json for every size and the citations\n";
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c)
      line += c + 1 == r.size() ? r[c] : r[c] + std::string(width[c] - r[c].size() + 2, ' ');
    out << line << "\n";
  }
  return out.str();
}

// An entry's sizes are its figures' own (report/figure.hpp, Series::size): ep's are the tokens a
// rank sends, every other workload's bytes.
bool sized_in_tokens(const regress::ExpectedEntry& e) { return e.workload == "ep"; }

std::string expected_size_text(const regress::ExpectedEntry& e, std::uint64_t size) {
  return sized_in_tokens(e) ? std::to_string(size) + " tokens" : binary_size_text(size);
}

nlohmann::ordered_json curve_json(const regress::SizeCurve& curve, const char* size_key = "size_bytes") {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [size, value] : curve) out.push_back({{size_key, size}, {"value", value}});
  return out;
}

// The case parts the entry holds for (ep's implementation, data type, phase ...); null: any.
nlohmann::ordered_json case_json(const regress::ExpectedEntry& e) {
  if (e.match_case.empty()) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : e.match_case) out[name] = value;
  return out;
}

nlohmann::ordered_json json_of(const regress::ExpectedTable& table) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const auto& e : table.entries()) {
    nlohmann::ordered_json source{{"kind", e.source.kind}, {"url", e.source.url}};
    if (!e.source.cite.empty()) source["cite"] = e.source.cite;
    if (e.source.kind == "own-run") {
      source["machine"] = e.source.machine;
      source["date"] = e.source.date;
      source["commit"] = e.source.commit;
      source["command"] = e.source.command;
    }
    entries.push_back({{"id", e.id},
                       {"gpu", e.gpu},
                       {"gpus", e.gpus == 0 ? nlohmann::ordered_json("any") : nlohmann::ordered_json(e.gpus)},
                       {"nodes", nodes_text(e)},
                       {"fabric", e.fabric},
                       {"nvls", e.nvls},
                       {"backend", e.backend},
                       {"workload", e.workload},
                       {"metric", e.metric},
                       {"case", case_json(e)},
                       {"points", curve_json(e.points, sized_in_tokens(e) ? "tokens" : "size_bytes")},
                       {"shape", e.shape.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.shape)},
                       {"from_bytes", e.from},
                       {"warn_below", curve_json(e.warn_below, sized_in_tokens(e) ? "tokens" : "size_bytes")},
                       {"fail_below", curve_json(e.fail_below, sized_in_tokens(e) ? "tokens" : "size_bytes")},
                       {"source", source},
                       {"origin", e.origin}});
  }
  return {{"schema", regress::kExpectedSchema}, {"origin", table.origin()}, {"entries", entries}};
}

std::string expected_help(const po::options_description& d) {
  std::ostringstream out;
  out << d << "\n"
      << "The figures every measuring run judges its collective rows by where no baseline exists yet\n"
         "(\"is this number normal?\"): per GPU model, GPUs a node, nodes, fabric and NCCL's NVLS setting,\n"
         "the busbw expected of each workload over the sizes, where it comes from (a published figure\n"
         "with its URL, or our own run named in docs/figures.md), and the ratios below which a row is WARN\n"
         "(said under the table) and FAIL (said, and exit code 10 for the run): both of its halves below,\n"
         "each by the better of its mean and its median iteration. One line per entry: its\n"
         "figure and floors at its largest listed size; --json gives every size and floor step and the\n"
         "whole citation. Between listed sizes a run interpolates on a log-log scale, and an entry with a\n"
         "shape follows an own-run curve below its published size (docs/expected.md says why).\n\n"
         "A run matches its provenance: every rank's GPU name as NVML gives it, GPUs a node (ranks / nodes),\n"
         "nodes, the network NCCL said it used (between nodes), and NCCL_NVLS_ENABLE (0: NVLS off, the\n"
         "shipped 2- and 4-GPU figures' setting). No entry: the run says so once. The mpi backend has\n"
         "none (it measures the host's MPI) unless a file gives one with backend: mpi.\n\n"
         "Built in from results/expected/*.yaml; --expected FILE (or COMMSWEEP_EXPECTED) adds entries,\n"
         "and one with a built-in id replaces it. A bad file is exit code 2 naming FILE:LINE and the key.\n\n"
         "Examples:\n"
         "  commsweep expected\n"
         "  commsweep expected --expected site.yaml --json -\n"
         "  mpirun -np 2 -x NCCL_NVLS_ENABLE=0 commsweep all_reduce --show-expected --expected site.yaml\n\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kOutputFailed});
  return out.str();
}

}  // namespace

int run_expected_command(int argc, char** argv, char**) {
  ExpectedOptions o;
  const auto flags = settings::options_of(expected_settings(), "commsweep expected flags");
  apply_command_flags(expected_settings(), o, parse_offline_command_flags(argc, argv, flags), "", "expected");
  if (o.help) {
    std::cout << expected_help(flags);
    return exit_code::kOk;
  }
  const ExpectedFile file = expected_file(o.expected);
  const regress::ExpectedTable table = regress::expected_table(file.path, file.named);
  const std::string text = o.json.empty() ? lines_of(table) : json_of(table).dump(2) + "\n";
  if (o.json.empty() || o.json == "-") {
    std::cout << text << std::flush;
    return exit_code::kOk;
  }
  try {
    output::write_output_file(o.json, text);
  } catch (const std::runtime_error& e) {
    throw Error(ErrorKind::Output, "--json " + o.json + ": " + e.what() + "; output not written");
  }
  return exit_code::kOk;
}

}  // namespace commsweep
