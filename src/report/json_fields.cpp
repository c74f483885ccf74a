#include "report/json_fields.hpp"

#include <stdexcept>

namespace commsweep::report::fields {

using nlohmann::json;

std::string field_path(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

void malformed(const std::string& path, const std::string& name, const std::string& what) {
  throw std::runtime_error("field \"" + field_path(path, name) + "\" " + what);
}

const json& member(const json& j, const std::string& name, const std::string& path) {
  if (!j.is_object() || !j.contains(name)) malformed(path, name, "missing");
  return j.at(name);
}

const json& array_member(const json& j, const std::string& name, const std::string& path) {
  const json& a = member(j, name, path);
  if (!a.is_array()) malformed(path, name, "is not a list");
  return a;
}

const json& object_member(const json& j, const std::string& name, const std::string& path) {
  const json& o = member(j, name, path);
  if (!o.is_object()) malformed(path, name, "is not an object");
  return o;
}

std::string text_of(const json& j, const std::string& name, const std::string& path) {
  const json& v = member(j, name, path);
  if (!v.is_string()) malformed(path, name, "is not a string");
  return v.get<std::string>();
}

std::uint64_t count_of(const json& j, const std::string& name, const std::string& path) {
  const json& v = member(j, name, path);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    malformed(path, name, "is not a whole number >= 0");
  }
  return v.get<std::uint64_t>();
}

std::string text_or_empty(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j.at(name).is_string() ? j.at(name).get<std::string>() : "";
}

}  // namespace commsweep::report::fields
