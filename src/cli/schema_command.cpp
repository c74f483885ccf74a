// `commsweep schema NAME`: the newest schema of results/schema (built in at configure time; the
// names are those files' own, commsweep.NAME.vN.schema.json, with no list kept here), with each `"x-commsweep-enum": "<list>"` marker replaced by the enum of
// that list, read from the registries: so that a collective, a workload (or a type, an EP
// routing, an EP implementation) added to the code is in the schema with no hand-kept list to
// update.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/types.hpp"
#include "ep/ep_config.hpp"
#include "ep/implementation.hpp"
#include "run/workload.hpp"

namespace commsweep {

// generated/builtin_schemas.cpp (src/CMakeLists.txt): file name and text of each schema file.
const std::vector<std::pair<std::string, std::string>>& builtin_schemas();

namespace {

constexpr const char* kHelpBody =
    "  prints the newest JSON Schema of that document (results/schema/commsweep.NAME.vN.schema.json)\n"
    "  with its enums filled from the registries: the workloads' tests (`commsweep list`), data\n"
    "  types, reductions, EP routings, types and implementations. The files in results/schema keep\n"
    "  a marker instead (\"x-commsweep-enum\": \"row_tests\"); the build writes the filled ones to\n"
    "  <build>/results/schema/, which the tests validate against.\n";

// NAME of each built-in commsweep.NAME.vN.schema.json, once, in file order.
std::vector<std::string> schema_names() {
  std::vector<std::string> out;
  for (const auto& [file, body] : builtin_schemas()) {
    const auto v = file.find(".v");
    if (file.rfind("commsweep.", 0) != 0 || v == std::string::npos) continue;
    std::string name = file.substr(10, v - 10);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

// "baseline|nvlink|pairs|results" (SEP "|"), or "baseline, nvlink, pairs or results".
std::string listed(const std::vector<std::string>& names, bool words) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += !words ? "|" : i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

template <typename Values>
nlohmann::ordered_json names(const Values& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& v : values) out.push_back(std::string(name_of(v)));
  return out;
}

// The lists a marker may name.
nlohmann::ordered_json enum_of(const std::string& list) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (list == "row_tests" || list == "baseline_tests") {
    // The workloads' in their order: the collectives' names, then "ep" (the baseline's EP rows).
    for (const Workload* w : workloads()) {
      const auto tests = list == "row_tests" ? w->row_tests : w->baseline_tests;
      if (tests != nullptr) {
        for (const auto& name : tests()) out.push_back(name);
      }
    }
  } else if (list == "data_types") {
    out = names(all_data_types());
  } else if (list == "reductions+none") {
    out = names(all_red_ops());
    out.push_back(std::string(name_of(RedOp::None)));
  } else if (list == "ep_routings") {
    out = names(ep::all_routing_kinds());
  } else if (list == "ep_dtypes") {
    out = names(ep::all_ep_dtypes());
  } else if (list == "ep_impls") {
    for (const auto& name : ep::ep_implementation_names()) out.push_back(name);
  } else {
    throw Error(ErrorKind::Runtime, "results/schema names an unknown list \"" + list + "\"");
  }
  return out;
}

void fill(nlohmann::ordered_json& node) {
  if (node.is_object()) {
    if (auto it = node.find("x-commsweep-enum"); it != node.end()) {
      nlohmann::ordered_json filled = nlohmann::ordered_json::object();
      for (auto& [key, value] : node.items()) {
        if (key == "x-commsweep-enum") {
          filled["enum"] = enum_of(value.get<std::string>());
        } else {
          filled[key] = value;
        }
      }
      node = std::move(filled);
    }
    for (auto& [key, value] : node.items()) fill(value);
  } else if (node.is_array()) {
    for (auto& value : node) fill(value);
  }
}

}  // namespace

int run_schema_command(int argc, char** argv, char**) {
  const std::string name = argc > 2 ? argv[2] : "";
  const std::vector<std::string> known = schema_names();
  if (name.empty() || name == "--help" || name == "-h" || name == "help") {
    std::cout << "commsweep schema " << listed(known, false) << " (offline, no MPI)\n" << kHelpBody;
    return name.empty() ? exit_code::kUsage : exit_code::kOk;
  }
  if (argc > 3) throw_usage("one name only: " + listed(known, true) + " (see --help)");
  // The newest version of commsweep.NAME.vN.schema.json.
  const std::string prefix = "commsweep." + name + ".v";
  const std::string* text = nullptr;
  int newest = 0;
  for (const auto& [file, body] : builtin_schemas()) {
    if (file.rfind(prefix, 0) != 0) continue;
    const int version = std::atoi(file.c_str() + prefix.size());
    if (version > newest) newest = version, text = &body;
  }
  if (text == nullptr) {
    throw_usage("unknown schema '" + name + "' (" + listed(known, true) + "; see --help)");
  }
  nlohmann::ordered_json schema = nlohmann::ordered_json::parse(*text);
  fill(schema);
  std::cout << schema.dump(2) << "\n";
  return exit_code::kOk;
}

}  // namespace commsweep
