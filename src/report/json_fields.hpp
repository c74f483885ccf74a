// Reading a workload's JSON document field by field, every error naming the field's path
// ("field \"nodes[0].pairs[3].src\" missing"): the figure readers of nvlink and pairs (their
// `figures` of run/workload.hpp) and any other workload's.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace commsweep::report::fields {

// "nodes[0].pairs" from "nodes[0]" and "pairs"; NAME alone at the top.
std::string field_path(const std::string& path, const std::string& name);
// Throws std::runtime_error "field \"PATH.NAME\" WHAT".
[[noreturn]] void malformed(const std::string& path, const std::string& name, const std::string& what);
// A member of J (an object), or an error naming it ("missing").
const nlohmann::json& member(const nlohmann::json& j, const std::string& name, const std::string& path);
// ... that is a list ("is not a list"), an object ("is not an object").
const nlohmann::json& array_member(const nlohmann::json& j, const std::string& name, const std::string& path);
const nlohmann::json& object_member(const nlohmann::json& j, const std::string& name, const std::string& path);
// ... a string ("is not a string"), a whole number >= 0 ("is not a whole number >= 0").
std::string text_of(const nlohmann::json& j, const std::string& name, const std::string& path);
std::uint64_t count_of(const nlohmann::json& j, const std::string& name, const std::string& path);
// "interrupted_by" and "failure" of a document's ending: the string, or "" when null or absent.
std::string text_or_empty(const nlohmann::json& j, const char* name);

}  // namespace commsweep::report::fields
