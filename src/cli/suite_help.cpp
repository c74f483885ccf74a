#include "cli/suite_options.hpp"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/flags.hpp"
#include "collectives/settings.hpp"
#include "ep/settings.hpp"
#include "core/error.hpp"
#include "settings/program_options.hpp"
#include "suite/document.hpp"

namespace commsweep {
namespace po = boost::program_options;
using nlohmann::json;
namespace {

const std::vector<std::string> kEntryKeys = {"name", "kind"};

// The suite's -T and -c, given on its command line: they override every sweep's key.
settings::Flags overrides(const SuiteCliOptions& o, bool ep) {
  settings::Flags flags;
  const auto flag = [](const char* where, std::string text) {
    settings::Given g;
    g.where = where;
    g.from = settings::Given::From::CommandLine;
    g.value = std::move(text);
    return g;
  };
  if (o.timeout_given) flags.emplace("timeout", flag("-T/--timeout", std::to_string(static_cast<long long>(o.timeout_s))));
  // EP verifies or not: -c N > 0 turns its check on.
  if (o.check_given) flags.emplace("check", flag("-c/--check", std::to_string(ep ? (o.check > 0 ? 1 : 0) : o.check)));
  return flags;
}

void read_collective(const settings::DocumentEntry& e, const SuiteCliOptions& o, SuiteSweep& s) {
  const auto& table = collective_settings();
  settings::check_keys(e, table.specs(), kEntryKeys);
  CollectiveSettings c;
  const settings::Origins origins = settings::apply(table, c, overrides(o, false), &e);
  check_collective_backend(c.sweep, origins, o.backend == BackendChoice::Mpi);
  s.tests = c.tests;
  s.collective = c.sweep;
}

void read_ep(const settings::DocumentEntry& e, const SuiteCliOptions& o, SuiteSweep& s) {
  const auto& table = ep::ep_settings();
  settings::check_keys(e, table.specs(), kEntryKeys);
  settings::apply(table, s.ep, overrides(o, true), &e);
}

SuiteSweep read_sweep(const std::string& path, const suite::Document& doc, const std::string& pointer,
                      std::size_t index, const SuiteCliOptions& o) {
  const json& entry = doc.value.at(json::json_pointer(pointer));
  settings::DocumentEntry e;
  e.entry = &entry;
  e.path = path;
  e.pointer = pointer;
  e.label = "sweep " + std::to_string(index + 1);
  e.line_of = [&doc](const std::string& p) { return doc.line_of(p); };
  if (!entry.is_object()) e.refuse("", "not a mapping of settings (name, kind, ...)");
  SuiteSweep s;
  s.name = "sweep " + std::to_string(index + 1);
  if (entry.contains("name")) {
    const json& name = entry.at("name");
    if (!name.is_string() || name.get<std::string>().empty()) e.refuse("name", "not a non-empty string");
    s.name = name.get<std::string>();
    e.label += " \"" + s.name + "\"";
  }
  if (!entry.contains("kind")) e.refuse("", "no key \"kind\" (collective or ep)");
  const json& kind = entry.at("kind");
  if (kind == "collective") {
    read_collective(e, o, s);
  } else if (kind == "ep") {
    s.kind = SuiteSweep::Kind::Ep;
    read_ep(e, o, s);
  } else {
    e.refuse("kind", kind.dump() + " is not a kind (collective or ep)");
  }
  s.where = e.where();
  return s;
}

po::options_description suite_flags() {
  po::options_description d("For the whole suite");
  d.add_options()
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU")
      ("timeout,T", po::value<std::string>()->default_value("300"), "seconds any phase may take before the job is ended; given, it overrides every sweep's key \"timeout\"")
      ("check,c", po::value<std::string>()->default_value("1"), "collectives: verify every output element N times per size (0: off); EP: verify when N > 0; given, it overrides every sweep's key \"check\"")
      ("json", po::value<std::string>(), "write the results of every sweep as one JSON file (atomically)")
      ("help,h", "show this help");
  return d;
}

}  // namespace

SuiteCliOptions parse_suite_options(int argc, const char* const* argv) {
  const int first = argc > 1 && std::string(argv[1]) == "suite" ? 2 : 1;
  po::options_description all;
  all.add(suite_flags()).add(fabric_run_flags()).add_options()("file", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("file", -1);
  const po::variables_map vm =
      parse_flags(argc, argv, first, all, positional, "suite: ", " (see commsweep suite --help)");
  SuiteCliOptions o;
  for (int i = 1; i < argc; ++i) o.arguments.emplace_back(argv[i]);
  if (vm.count("help")) {
    o.help = true;
    return o;
  }
  const auto files = vm.count("file") ? vm["file"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 1) {
    throw_usage("suite: give one suite file (" + std::to_string(files.size()) +
                " given; see commsweep suite --help)");
  }
  o.path = files.front();
  if (o.path.empty()) throw_usage("suite: the suite file's name is empty");
  o.backend = parse_backend(vm["backend"].as<std::string>());
  o.fabric = parse_fabric_run_flags(vm, o.backend == BackendChoice::Mpi);
  if (vm.count("json")) {
    o.json_path = vm["json"].as<std::string>();
    if (o.json_path.empty()) throw_usage("--json: give a file name");
  }
  // -T and -c as `commsweep TEST...` reads them: the collectives' settings, their messages.
  const settings::Flags given = settings::given_flags(vm, collective_settings().specs());
  for (const settings::Spec* spec : collective_settings().specs()) {
    const auto it = given.find(spec->flag);
    if (it == given.end()) continue;
    const settings::Value v = settings::read(spec->type, it->second);
    if (spec->flag == "timeout") {
      o.timeout_s = static_cast<double>(v.whole);
      o.timeout_given = true;
    } else if (spec->flag == "check") {
      o.check = static_cast<int>(v.whole);
      o.check_given = true;
    }
  }
  return o;
}

Suite read_suite(const std::string& path, const std::string& text, const SuiteCliOptions& o) {
  suite::Document doc;
  try {
    doc = suite::parse_document(path, text);
  } catch (const suite::SyntaxError& e) {
    throw_usage(path + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": " +
                e.what());
  }
  std::string list = "";
  if (doc.value.is_object()) {
    for (const auto& item : doc.value.items()) {
      if (item.key() != "sweeps" && item.key() != "description") {
        const int line = doc.line_of(suite::pointer_child("", item.key()));
        throw_usage(path + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                    ": unknown key \"" + item.key() + "\" (a suite's keys: sweeps description)");
      }
    }
    list = "/sweeps";
  }
  const json* sweeps = &doc.value;
  if (doc.value.is_object()) sweeps = doc.value.contains("sweeps") ? &doc.value.at("sweeps") : nullptr;
  if (sweeps == nullptr || !sweeps->is_array() || sweeps->empty()) {
    const int line = doc.line_of(list);
    throw_usage(path + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                ": a suite is a non-empty list of sweeps (or a mapping whose key \"sweeps\" holds one)");
  }
  Suite suite;
  std::set<std::string> names;
  for (std::size_t i = 0; i < sweeps->size(); ++i) {
    SuiteSweep s = read_sweep(path, doc, list + "/" + std::to_string(i), i, o);
    if (!names.insert(s.name).second) {
      throw_usage(s.where + ": the name is used by an earlier sweep (names must differ)");
    }
    suite.sweeps.push_back(std::move(s));
  }
  // The results file records one buffers choice (provenance.buffers) for all its rows.
  const SuiteSweep* first = nullptr;
  for (const SuiteSweep& s : suite.sweeps) {
    if (s.kind == SuiteSweep::Kind::Ep) continue;
    if (first == nullptr) {
      first = &s;
    } else if (s.collective.buffers != first->collective.buffers) {
      throw_usage(s.where + ": key \"buffers\": " + std::string(name_of(s.collective.buffers)) + " differs from " +
                  std::string(name_of(first->collective.buffers)) + " of " + first->where +
                  ": a suite's results file records one buffers choice, so its collective sweeps share it "
                  "(run a second suite for the other)");
    }
  }
  return suite;
}

}  // namespace commsweep

namespace commsweep {
namespace {

// "tests, min_bytes (-b), ..., timer (--timer)": each key and its flag, in lines of at most 88
// columns continued after 15 spaces.
std::string keys_and_flags(const std::vector<const settings::Spec*>& specs) {
  std::string out, line;
  for (const settings::Spec* s : specs) {
    if (s->key.empty()) continue;
    std::string item = s->key;
    if (!s->flag.empty()) item += s->letter ? std::string(" (-") + s->letter + ")" : " (--" + s->flag + ")";
    if (!line.empty() && 15 + line.size() + 2 + item.size() > 88) {
      out += line + ",\n" + std::string(15, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : ", ") + item;
  }
  return out + line;
}

}  // namespace

std::string suite_help_text() {
  std::ostringstream out;
  out << "commsweep suite: several sweeps, collective and EP, one after the other on one\n"
         "communicator (one MPI world, one backend): a table per sweep, as `commsweep TEST...`\n"
         "and `commsweep ep` print them, and one JSON results file for all (rows and ep_rows).\n\n"
         "Usage: mpirun -np N commsweep suite FILE [flags]\n"
         "       commsweep suite --help\n\n"
      << suite_flags() << "\n"
      << fabric_run_flags() << "\n"
      << "FILE: JSON (a .json name, or text that begins with '[' or '{') or YAML, a list of\n"
         "sweeps (or a mapping whose key \"sweeps\" holds the list, beside an optional\n"
         "\"description\"). Rank 0 reads it and sends its bytes to every rank, so that all run\n"
         "the same suite. Each sweep is a mapping:\n"
         "  name         optional; unique; shown above its table (default \"sweep N\")\n"
         "  kind         collective or ep\n"
         "  collective:  " << keys_and_flags(collective_settings().specs()) << "\n"
         "  ep:          " << keys_and_flags(ep::ep_settings().specs()) << "\n"
         "Values are those of the flags (`commsweep --help`, `commsweep ep --help`): sizes\n"
         "with K M G T suffixes, the same type and operator names; a list (tests, dtypes,\n"
         "ops; ep's tokens, hidden, topk, experts, dtype, routing, impl) as a YAML/JSON list\n"
         "or a comma list; routing_file relative to FILE's folder. A key left out takes the\n"
         "flag's default; -T and -c given to `commsweep suite` override every sweep's timeout\n"
         "and check. `commsweep ep --suite FILE` reads the same keys as one ep entry. An\n"
         "unknown key or a bad value is refused before anything runs, with the file, line,\n"
         "sweep and key (exit code 2).\n\n"
         "YAML: read by yaml-cpp, a subset allowed. Mappings (key: value) and sequences\n"
         "(- item) by indentation with spaces; plain, 'single' and \"double\" quoted scalars;\n"
         "one-line flow sequences [a, b]; # comments. Refused with the line: anchors, aliases,\n"
         "tags, flow mappings { }, block scalars | >, multi-line scalars, several documents,\n"
         "tabs in the indentation, duplicate keys.\n\n"
         "SIGTERM / SIGINT end the running sweep at its next step and skip the rest: the rows\n"
         "measured are printed and written, marked incomplete (exit code 5). Exit codes as\n"
         "`commsweep --help`: 0 all passed, 1 wrong elements, 2 bad flags or suite file,\n"
         "3 a call failed, 4 timeout, 5 interrupted, 6 NCCL did not use the --require-transport /\n"
         "--require-gdr transport (no sweep ran). The brief preflight, the transport report and\n"
         "the binding happen once, before the first sweep.\n\n"
         "Example (suites/ci.yaml is one; suites/default.yaml is the full GPU suite):\n"
         "  # nightly.yaml\n"
         "  - name: allreduce-large\n"
         "    kind: collective\n"
         "    tests: [all_reduce]\n"
         "    min_bytes: 1M\n"
         "    max_bytes: 8G\n"
         "    dtypes: [float, bfloat16]\n"
         "  - name: moe\n"
         "    kind: ep\n"
         "    tokens: [128, 4096]\n"
         "    experts: 256\n\n"
         "  mpirun -np 8 commsweep suite nightly.yaml --json nightly.json\n"
         "  mpirun -np 4 commsweep suite suites/ci.yaml --backend mpi\n";
  return out.str();
}

}  // namespace commsweep
