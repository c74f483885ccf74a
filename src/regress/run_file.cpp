#include "regress/run_file.hpp"

#include <map>
#include <stdexcept>

#include "regress/matrices.hpp"
#include "report/json.hpp"

namespace commsweep::regress {
namespace {

using nlohmann::json;

// "interrupted_by" and "failure" of a matrix document: a string, or null (absent) when complete.
std::string text_or_empty(const json& j, const char* name) {
  return j.contains(name) && j.at(name).is_string() ? j.at(name).get<std::string>() : "";
}

// An nvlink or pairs document: its ending is at the top (nvlink) or in its summary (pairs).
report::Results matrix_run(const json& doc, bool nvlink) {
  report::Results r;
  r.schema = doc.at("schema").get<std::string>();
  r.provenance = report::provenance_from_json(doc.at("provenance"));
  const json& ending = nvlink ? doc : doc.at("summary");
  r.complete = ending.at("complete").get<bool>();
  r.interrupted_by = text_or_empty(ending, "interrupted_by");
  r.failure = text_or_empty(ending, "failure");
  const json& wrong = nvlink ? doc.at("summary").at("wrong") : doc.at("summary").at("wrong_total");
  r.wrong_total = wrong.is_number() ? wrong.get<std::uint64_t>() : 0;  // null: not checked
  if (doc.contains("health") && doc.at("health").is_object()) r.health = doc.at("health");
  (nvlink ? r.nvlink : r.pairs).push_back(doc);
  // Read every pair now: a malformed document is refused here, naming its field.
  std::map<Key, Observation> observed;
  nvlink ? observe_nvlink(doc, observed) : observe_pairs(doc, observed);
  return r;
}

}  // namespace

report::Results run_from_json(const json& doc) {
  const std::string schema = doc.is_object() && doc.contains("schema") && doc.at("schema").is_string()
                                 ? doc.at("schema").get<std::string>()
                                 : "";
  for (const std::string judged : {kNvlinkSchema, kPairsSchema}) {
    const std::string family = judged.substr(0, judged.find('/') + 1);  // "commsweep.pairs/"
    if (schema != judged && schema.rfind(family, 0) == 0) {
      throw std::runtime_error("schema \"" + schema + "\" is not the one this commsweep judges (\"" + judged + "\")");
    }
  }
  if (schema != kNvlinkSchema && schema != kPairsSchema) return report::results_from_json(doc);
  try {
    return matrix_run(doc, schema == kNvlinkSchema);
  } catch (const std::exception& e) {  // json::exception, or a field named by matrices.cpp
    throw std::runtime_error("malformed " + schema + " document: " + e.what());
  }
}

report::Results read_run_file(const std::string& path) {
  const json doc = report::read_json_file(path);
  try {
    return run_from_json(doc);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace commsweep::regress
