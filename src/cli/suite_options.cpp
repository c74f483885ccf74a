#include "cli/suite_options.hpp"

#include <boost/program_options.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/ep_options.hpp"
#include "cli/flags.hpp"
#include "runtime/error.hpp"
#include "suite/document.hpp"

namespace commsweep {
namespace po = boost::program_options;
using nlohmann::json;
namespace {

// A sweep's key and the flag of `commsweep TEST...` / `commsweep ep` it stands for.
struct KeyFlag {
  const char* key;
  const char* flag;  // long name; nullptr: the positional tests
  bool list;         // a list (or a comma list), as the flag's comma list
};

// Named as the flags' values are named; the flags' defaults apply to keys left out.
constexpr KeyFlag kCollectiveKeys[] = {
    {"tests", nullptr, true},           {"min_bytes", "--minbytes", false},
    {"max_bytes", "--maxbytes", false}, {"step_bytes", "--stepbytes", false},
    {"step_factor", "--stepfactor", false}, {"dtypes", "--datatype", true},
    {"ops", "--op", true},              {"root", "--root", false},
    {"iters", "--iters", false},        {"warmup", "--warmup_iters", false},
    {"blocking", "--blocking", false},  {"cudagraph", "--cudagraph", false},
    {"average", "--average", false},    {"timer", "--timer", false},
    {"seed", "--seed", false}};
constexpr KeyFlag kEpKeys[] = {
    {"tokens", "--tokens", true},       {"hidden", "--hidden", true},
    {"topk", "--topk", true},           {"experts", "--experts", true},
    {"dtype", "--dtype", true},         {"routing", "--routing", true},
    {"skew", "--skew", false},          {"routing_file", "--routing-file", false},
    {"topk_groups", "--topk-groups", false}, {"iters", "--iters", false},
    {"warmup", "--warmup_iters", false}, {"seed", "--seed", false}};

template <std::size_t N>
std::string key_names(const KeyFlag (&keys)[N]) {
  std::string out = "name kind";
  for (const auto& k : keys) out += std::string(" ") + k.key;
  return out;
}

// One sweep entry being read: where it is, for every message about it.
struct Entry {
  const std::string& path;
  const suite::Document& doc;
  const json& entry;
  std::string pointer;  // "/3" or "/sweeps/3"
  std::string label;    // "sweep 4 \"big\""

  std::string at(const std::string& key = {}) const {
    const int line = doc.line_of(key.empty() ? pointer : suite::pointer_child(pointer, key));
    return path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + label;
  }
  [[noreturn]] void refuse(const std::string& key, const std::string& why) const {
    throw_usage(at(key) + (key.empty() ? "" : ": key \"" + key + "\"") + ": " + why);
  }
};

// A scalar as the flag's text: what a user would have typed.
std::string flag_text(const Entry& e, const std::string& key, const json& v) {
  if (v.is_string()) {
    if (v.get<std::string>().empty()) e.refuse(key, "an empty value");
    return v.get<std::string>();
  }
  if (v.is_boolean()) {
    if (key == "blocking") return v.get<bool>() ? "1" : "0";
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_number()) return v.dump();
  if (v.is_null()) e.refuse(key, "no value given");
  e.refuse(key, v.dump() + " is not a single value");
}

std::string value_text(const Entry& e, const KeyFlag& k, const json& v) {
  if (!v.is_array()) return flag_text(e, k.key, v);
  if (!k.list) e.refuse(k.key, "takes one value, not a list");
  if (v.empty()) e.refuse(k.key, "an empty list");
  std::string joined;
  for (const auto& item : v) {
    if (item.is_array() || item.is_object()) e.refuse(k.key, "a list of single values is expected");
    joined += (joined.empty() ? "" : ",") + flag_text(e, k.key, item);
  }
  return joined;
}

// Whether `message` names `flag` ("--topk" is not named by "--topk-groups").
bool names_flag(const std::string& message, const std::string& flag) {
  for (auto at = message.find(flag); at != std::string::npos; at = message.find(flag, at + 1)) {
    const std::size_t end = at + flag.size();
    const char next = end < message.size() ? message[end] : ' ';
    if (!std::isalnum(static_cast<unsigned char>(next)) && next != '-' && next != '_') return true;
  }
  return false;
}

// Runs the command's own parser on the entry's flags; its refusal comes back naming the key.
template <std::size_t N, typename Parse>
auto parse_as_flags(const Entry& e, const KeyFlag (&keys)[N], const std::vector<std::string>& args,
                    Parse parse) {
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    return parse(static_cast<int>(argv.size()), argv.data());
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::Usage) throw;
    const std::string message = error.what();
    // The first key the message names, of those the entry gives ("-f 1 ... give -i" is about
    // step_factor when step_bytes is not there), else of all.
    for (const bool given_only : {true, false}) {
      for (const auto& k : keys) {
        const bool named = k.flag ? names_flag(message, k.flag)
                                  : message.compare(0, 24, "unknown command or test ") == 0;
        if (named && (!given_only || e.entry.contains(k.key))) e.refuse(k.key, message);
      }
    }
    e.refuse("", message);
  }
}

void check_keys(const Entry& e, const json& entry, const std::string& known) {
  for (const auto& item : entry.items()) {
    if (known.find(" " + item.key() + " ") == std::string::npos) {
      e.refuse(item.key(), "unknown key (the keys of this kind:" + known.substr(0, known.size() - 1) + ")");
    }
  }
}

void read_collective(const Entry& e, const json& entry, const SuiteCliOptions& o, SuiteSweep& s) {
  check_keys(e, entry, " " + key_names(kCollectiveKeys) + " ");
  std::vector<std::string> args{"commsweep"};
  std::vector<std::string> flags;
  for (const auto& k : kCollectiveKeys) {
    if (!entry.contains(k.key)) continue;
    const std::string text = value_text(e, k, entry.at(k.key));
    if (k.flag) {
      flags.push_back(std::string(k.flag) + "=" + text);
      continue;
    }
    for (const auto& test : split_commas(text)) {
      // A flag or `list` in the place of a test would change what the parser does.
      if (test[0] == '-' || test == "list") e.refuse(k.key, "'" + test + "' is not a test");
      args.push_back(test);
    }
  }
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back("--backend=" + std::string(o.backend == BackendChoice::Mpi    ? "mpi"
                                            : o.backend == BackendChoice::Nccl ? "nccl"
                                                                               : "auto"));
  args.push_back("--timeout=" + o.timeout);
  args.push_back("--check=" + o.check);
  const CliOptions cli = parse_as_flags(e, kCollectiveKeys, args, parse_options);
  s.tests = cli.tests;
  s.collective = cli.sweep;
}

void read_ep(const Entry& e, const json& entry, const SuiteCliOptions& o, SuiteSweep& s) {
  check_keys(e, entry, " " + key_names(kEpKeys) + " ");
  std::vector<std::string> args{"commsweep", "ep"};
  for (const auto& k : kEpKeys) {
    if (!entry.contains(k.key)) continue;
    std::string text = value_text(e, k, entry.at(k.key));
    // As with `commsweep ep --suite`: a routing file relative to the suite's folder.
    if (std::string(k.key) == "routing_file" && std::filesystem::path(text).is_relative()) {
      text = (std::filesystem::path(e.path).parent_path() / text).string();
    }
    args.push_back(std::string(k.flag) + "=" + text);
  }
  args.push_back("--timeout=" + o.timeout);
  args.push_back("--check=" + std::string(o.check == "0" ? "0" : "1"));
  s.ep = parse_as_flags(e, kEpKeys, args, parse_ep_options).config;
}

SuiteSweep read_sweep(const std::string& path, const suite::Document& doc, const std::string& pointer,
                      std::size_t index, const SuiteCliOptions& o) {
  const json& entry = doc.value.at(json::json_pointer(pointer));
  Entry e{path, doc, entry, pointer, "sweep " + std::to_string(index + 1)};
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
    read_collective(e, entry, o, s);
  } else if (kind == "ep") {
    s.kind = SuiteSweep::Kind::Ep;
    read_ep(e, entry, o, s);
  } else {
    e.refuse("kind", kind.dump() + " is not a kind (collective or ep)");
  }
  s.where = e.at();
  return s;
}

po::options_description suite_flags() {
  po::options_description d("For the whole suite");
  d.add_options()
      ("backend", po::value<std::string>()->default_value("auto"), "nccl (device buffers), mpi (host buffers), or auto: nccl where every rank has a GPU")
      ("timeout,T", po::value<std::string>()->default_value("300"), "seconds any phase may take before the job is ended")
      ("check,c", po::value<std::string>()->default_value("1"), "collectives: verify every output element N times per size (0: off); EP: verify when N > 0")
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
  o.timeout = vm["timeout"].as<std::string>();
  o.check = vm["check"].as<std::string>();
  // -T and -c as `commsweep TEST...` takes them: its parser, its messages.
  const std::string timeout = "--timeout=" + o.timeout, check = "--check=" + o.check;
  const char* probe[] = {"commsweep", timeout.c_str(), check.c_str()};
  const CliOptions cli = parse_options(3, probe);
  o.check = std::to_string(cli.sweep.check);
  o.timeout = std::to_string(static_cast<long long>(cli.sweep.timeout_s));
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
  return suite;
}

}  // namespace commsweep

namespace commsweep {

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
         "  collective:  tests (a list or a comma list; all), min_bytes (-b), max_bytes (-e),\n"
         "               step_bytes (-i), step_factor (-f), dtypes (-d), ops (-o), root (-r),\n"
         "               iters (-n), warmup (-w), blocking (-z), cudagraph (-G), average (-a),\n"
         "               timer, seed\n"
         "  ep:          tokens, hidden, topk, experts, dtype, routing (each a list or one\n"
         "               value), skew, routing_file (relative to FILE's folder), topk_groups,\n"
         "               iters, warmup, seed\n"
         "Values are those of the flags (`commsweep --help`, `commsweep ep --help`): sizes with\n"
         "K M G T suffixes, the same type and operator names; keys left out take the flags'\n"
         "defaults. An unknown key or a bad value is refused before anything runs, with the\n"
         "file, line, sweep and key (exit code 2).\n\n"
         "YAML: a strict subset, read without a YAML library. Mappings (key: value) and\n"
         "sequences (- item) by indentation with spaces; plain, 'single' and \"double\" quoted\n"
         "scalars; one-line flow sequences [a, b]; # comments. Refused with the line: anchors,\n"
         "aliases, tags, flow mappings { }, block scalars | >, multi-line scalars, several\n"
         "documents, tabs in the indentation, duplicate keys.\n\n"
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
