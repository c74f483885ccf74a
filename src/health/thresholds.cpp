#include "health/thresholds.hpp"

#include <cmath>
#include <limits>

#include "core/strings.hpp"
#include "core/text_file.hpp"
#include "core/error.hpp"
#include "settings/setting.hpp"
#include "suite/document.hpp"

namespace commsweep::health {

namespace {

using nlohmann::json;

// "--health-thresholds PATH" or "COMMSWEEP_HEALTH_THRESHOLDS=PATH".
std::string given_as(const std::string& named, const std::string& path) {
  return named + (!named.empty() && named.back() == '=' ? "" : " ") + path;
}

settings::Spec key(const char* name, settings::Type type) {
  settings::Spec s;
  s.key = name;
  s.type = std::move(type);
  return s;
}

// The keys of a rule: severity for every rule, a limit for a counter's.
const settings::Spec& severity_key() {
  static const settings::Spec s = key("severity", settings::choice({"fail", "warn", "info"}, "severity"));
  return s;
}
const settings::Spec& limit_key(bool per_minute) {
  const double inf = std::numeric_limits<double>::infinity();
  static const settings::Spec second = key("limit_per_second", settings::number(-inf, inf));
  static const settings::Spec minute = key("limit_per_minute", settings::number(-inf, inf));
  return per_minute ? minute : second;
}

// As the file writes it: "fail", "warn", "info".
std::string severity_word(Severity s) { return s == Severity::Fail ? "fail" : s == Severity::Warn ? "warn" : "info"; }

std::vector<std::string> rule_names(const RuleBook& book) {
  std::vector<std::string> names;
  for (const auto& r : book.rows()) names.push_back(r.name);
  return names;
}

class Reader {
 public:
  Reader(const std::string& path, const std::string& named, const suite::Document& doc)
      : path_(path), named_(named), doc_(doc) {}

  [[noreturn]] void refuse(const std::string& pointer, const std::string& why) const {
    const int line = doc_.line_of(pointer);
    throw_usage(given_as(named_, path_) + (line > 0 ? ":" + std::to_string(line) : "") + ": " + why);
  }

  void check_top() const {
    if (!doc_.value.is_object())
      refuse("", "a thresholds file is a mapping: \"schema: " + std::string(kThresholdsSchema) + "\", then \"rules:\"");
    for (const auto& item : doc_.value.items())
      if (item.key() != "schema" && item.key() != "rules")
        refuse(suite::pointer_child("", item.key()), "unknown key \"" + item.key() + "\" (a thresholds file's keys: schema rules)");
    if (!doc_.value.contains("schema"))
      refuse("", "no \"schema: " + std::string(kThresholdsSchema) + "\" line (is this a thresholds file?)");
    const json& schema = doc_.value.at("schema");
    if (schema != kThresholdsSchema)
      refuse("/schema", "key \"schema\": " + schema.dump() + " is not " + kThresholdsSchema);
  }

  void read_rule(const std::string& name, const json& value, RuleBook& book) const {
    const std::string pointer = suite::pointer_child("/rules", name);
    Rule* row = nullptr;
    for (auto& r : book.rows())
      if (r.name == name) row = &r;
    if (!row) {
      const std::string guess = closest_name(name, rule_names(book));
      refuse(pointer, "unknown rule \"" + name + "\"" +
                          (guess.empty() ? " (the rules: results/health-thresholds.yaml, docs/health.md)"
                                         : " (did you mean '" + guess + "'?)"));
    }
    settings::DocumentEntry entry;
    entry.entry = &value;
    entry.path = path_;
    entry.prefix = given_as(named_, "");
    entry.label = "rule \"" + name + "\"";
    entry.pointer = pointer;
    entry.line_of = [this](const std::string& p) { return doc_.line_of(p); };
    const bool counter = row->kind == RuleKind::Rise;
    if (!value.is_object())
      entry.refuse("", counter ? "a mapping of severity and limit_per_second (or limit_per_minute) is expected"
                               : "a mapping with severity is expected (a state has no limit)");
    const std::vector<const settings::Spec*> keys =
        counter ? std::vector<const settings::Spec*>{&severity_key(), &limit_key(false), &limit_key(true)}
                : std::vector<const settings::Spec*>{&severity_key()};
    settings::check_keys(entry, keys, {});
    if (const auto given = settings::choose(severity_key(), {}, &entry)) {
      const std::string s = settings::read(severity_key().type, *given).text;
      row->severity = s == "fail" ? Severity::Fail : s == "warn" ? Severity::Warn : Severity::Info;
    }
    if (value.contains("limit_per_second") && value.contains("limit_per_minute"))
      entry.refuse("limit_per_minute", "give limit_per_second or limit_per_minute, not both");
    for (const bool per_minute : {false, true}) {
      const auto given = settings::choose(limit_key(per_minute), {}, &entry);
      if (!given) continue;
      const double limit = settings::read(limit_key(per_minute).type, *given).number;
      if (limit < 0)
        entry.refuse(limit_key(per_minute).key, given->shown() + " is negative: a limit is 0 or more rises " +
                                                    (per_minute ? "a minute" : "a second"));
      if (row->severity != Severity::Warn)
        entry.refuse(limit_key(per_minute).key, "a limit is for severity warn, and this rule's is " +
                                                    severity_word(row->severity) + " (add severity: warn)");
      row->limit = per_minute ? limit / 60 : limit;
      row->per_minute = per_minute;
    }
    if (row->severity != Severity::Warn) {  // a limit means nothing to fail or info
      row->limit = 0;
      row->per_minute = false;
    }
    const int line = doc_.line_of(pointer);
    row->origin = path_ + (line > 0 ? ":" + std::to_string(line) : "");
  }

 private:
  const std::string& path_;
  const std::string& named_;
  const suite::Document& doc_;
};

}  // namespace

RuleBook parse_thresholds(const std::string& path, const std::string& text, const std::string& named) {
  suite::Document doc;
  try {
    doc = suite::parse_document(path, text);
  } catch (const suite::SyntaxError& e) {
    throw_usage(given_as(named, path) + (e.line() > 0 ? ":" + std::to_string(e.line()) : "") + ": " + e.what());
  }
  const Reader reader(path, named, doc);
  reader.check_top();
  RuleBook book;
  book.set_file(path);
  if (!doc.value.contains("rules")) return book;
  const json& rules = doc.value.at("rules");
  if (!rules.is_object()) reader.refuse("/rules", "key \"rules\": a mapping of rule names is expected");
  for (const auto& [name, value] : rules.items()) reader.read_rule(name, value, book);
  return book;
}

RuleBook read_thresholds_file(const std::string& path, const std::string& named) {
  std::string text;
  try {
    text = read_bounded_file(path, suite::kMaxDocumentBytes);
  } catch (const std::runtime_error& e) {
    throw_usage(given_as(named, e.what()));  // "--health-thresholds PATH: cannot read: ..."
  }
  return parse_thresholds(path, text, named);
}

}  // namespace commsweep::health
