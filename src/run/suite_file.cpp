#include "run/suite_file.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "suite/document.hpp"

namespace commsweep {
namespace {

using nlohmann::json;

const std::vector<std::string> kEntryKeys = {"name", "kind"};

// The kind's key "check", or null where it has none.
const settings::Spec* check_key(const Workload& w) {
  for (const settings::Spec* s : w.specs())
    if (s->key == "check") return s;
  return nullptr;
}

std::unique_ptr<Measurement> read_kind(const Workload& w, const settings::DocumentEntry& e, const SuiteOverrides& o,
                                       const ReportFiles& reports) {
  RunSettings run = o.run;
  run.timeout_s = read_run_settings(o.run_flags, &e).timeout_s;
  run.reports = reports;
  settings::Flags flags;
  const settings::Spec* check = check_key(w);
  if (o.check && check) {
    settings::Given g;
    g.where = "-c/--check";
    g.from = settings::Given::From::CommandLine;
    // -c N as many checks as the kind takes: ep's check is on (1) or off (0).
    long long n = *o.check;
    if (check->type.kind == settings::Kind::Whole) n = std::min(n, check->type.max);
    g.value = std::to_string(n);
    flags.emplace(check->flag, std::move(g));
  }
  return w.read(flags, &e, run);
}

RunSweep read_sweep(const std::string& path, const suite::Document& doc, const std::string& pointer, std::size_t index,
                 const SuiteOverrides& o, std::vector<std::unique_ptr<Measurement>>& owned) {
  const json& entry = doc.value.at(json::json_pointer(pointer));
  settings::DocumentEntry e;
  e.entry = &entry;
  e.path = path;
  e.pointer = pointer;
  e.label = "sweep " + std::to_string(index + 1);
  e.line_of = [&doc](const std::string& p) { return doc.line_of(p); };
  if (!entry.is_object()) e.refuse("", "not a mapping of settings (name, kind, ...)");
  RunSweep s;
  s.name = "sweep " + std::to_string(index + 1);
  if (entry.contains("name")) {
    const json& name = entry.at("name");
    if (!name.is_string() || name.get<std::string>().empty()) e.refuse("name", "not a non-empty string");
    s.name = name.get<std::string>();
    e.label += " \"" + s.name + "\"";
  }
  if (!entry.contains("kind")) e.refuse("", "no key \"kind\" (" + suite_kinds() + ")");
  const json& kind = entry.at("kind");
  const Workload* w = kind.is_string() ? find_workload(kind.get<std::string>()) : nullptr;
  if (w == nullptr) e.refuse("kind", kind.dump() + " is not a kind (" + suite_kinds() + ")");
  settings::check_keys(e, entry_specs(*w), kEntryKeys);
  s.workload = w;
  s.reports = read_report_files(*w, {}, &e);
  owned.push_back(read_kind(*w, e, o, s.reports));
  s.measurement = owned.back().get();
  s.where = e.where();
  return s;
}

// One results file records some settings once for all its rows (provenance.buffers): the
// sweeps must agree on each.
void require_one_recording(const std::vector<RunSweep>& sweeps) {
  std::vector<std::pair<std::pair<std::string, std::string>, const RunSweep*>> first;  // (key, value), its sweep
  for (const RunSweep& s : sweeps) {
    for (const auto& recorded : s.measurement->recorded_once()) {
      // Named copies, not a structured binding: C++17 (clang) does not let a lambda capture one.
      const std::string& key = recorded.first;
      const std::string& value = recorded.second;
      const auto known = std::find_if(first.begin(), first.end(), [&](const auto& f) { return f.first.first == key; });
      if (known == first.end()) {
        first.push_back({{key, value}, &s});
      } else if (known->first.second != value) {
        throw_usage(s.where + ": key \"" + key + "\": " + value + " differs from " + known->first.second + " of " +
                    known->second->where + ": a suite's results file records one " + key +
                    " choice, so its sweeps share it (run a second suite for the other)");
      }
    }
  }
}

}  // namespace

std::string suite_kinds() {
  std::string out;
  const auto& all = workloads();
  for (std::size_t i = 0; i < all.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + std::string(all[i]->name);
  }
  return out;
}

SuiteSweeps read_suite(const std::string& path, const std::string& text, const SuiteOverrides& o) {
  suite::Document doc;
  std::string list;
  try {
    doc = suite::parse_document(path, text);
    list = suite::sweeps_pointer(doc);
  } catch (const suite::SyntaxError& e) {
    throw_usage(path + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": " + e.what());
  }
  const json& sweeps = doc.value.at(json::json_pointer(list));
  SuiteSweeps suite;
  std::set<std::string> names;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    RunSweep s = read_sweep(path, doc, list + "/" + std::to_string(i), i, o, suite.owned);
    if (!names.insert(s.name).second) {
      throw_usage(s.where + ": the name is used by an earlier sweep (names must differ)");
    }
    suite.sweeps.push_back(std::move(s));
  }
  require_one_recording(suite.sweeps);
  return suite;
}

}  // namespace commsweep
