#include "settings/setting.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/strings.hpp"
#include "core/error.hpp"
#include "suite/document.hpp"
#include "core/sizes.hpp"

namespace commsweep::settings {
namespace {

using nlohmann::json;

// An item as a user wrote it: text as is, anything else as JSON.
std::string shown_item(const json& item) { return item.is_string() ? item.get<std::string>() : item.dump(); }

long long whole_item(const Type& t, const Given& g, const json& item) {
  long long v = 0;
  if (item.is_string()) {
    const std::string text = item.get<std::string>();
    std::size_t used = 0;
    try {
      v = std::stoll(text, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) throw_usage(g.where + ": '" + text + "' is not a whole number");
  } else if (item.is_boolean() && t.min <= 0 && t.max >= 1) {
    v = item.get<bool>() ? 1 : 0;
  } else if (item.is_number_integer()) {
    const bool huge = item.is_number_unsigned() && item.get<std::uint64_t>() > INT64_MAX;
    v = huge ? INT64_MAX : item.get<long long>();
    if (huge) throw_usage(g.where + ": " + item.dump() + " is out of range (" + std::to_string(t.min) + " to " + std::to_string(t.max) + ")");
  } else {
    throw_usage(g.where + ": " + item.dump() + " is not a whole number");
  }
  if (v < t.min || v > t.max) {
    throw_usage(g.where + ": " + shown_item(item) + " is out of range (" + std::to_string(t.min) + " to " +
                std::to_string(t.max) + ")");
  }
  return v;
}

std::uint64_t unsigned_item(const Given& g, const json& item) {
  if (item.is_number_unsigned()) return item.get<std::uint64_t>();
  if (item.is_number_integer()) throw_usage(g.where + ": " + item.dump() + " is negative");
  if (!item.is_string()) throw_usage(g.where + ": " + item.dump() + " is not a whole number");
  const std::string text = item.get<std::string>();
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    if (!text.empty() && text[0] != '-') v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    throw_usage(g.where + ": '" + text + "' is not a whole number from 0 to 2^64-1");
  }
  return v;
}

// "1.5", "0.001", "1e+06": a number as a message shows it.
std::string compact(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

double number_item(const Type& t, const Given& g, const json& item) {
  double v = 0;
  if (item.is_string()) {
    const std::string text = item.get<std::string>();
    std::size_t used = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) throw_usage(g.where + ": '" + text + "' is not a number");
  } else if (item.is_number()) {
    v = item.get<double>();
  } else {
    throw_usage(g.where + ": " + item.dump() + " is not a number");
  }
  const bool unbounded = std::isinf(t.high);
  if (!std::isfinite(v) || v < t.low || (t.above_low && v <= t.low) || v > t.high) {
    if (t.above_low && unbounded) throw_usage(g.where + ": " + shown_item(item) + " must be a number > " + compact(t.low));
    if (t.above_low) {
      throw_usage(g.where + ": " + shown_item(item) + " is not in (" + compact(t.low) + ", " + compact(t.high) + "]");
    }
    throw_usage(g.where + ": " + shown_item(item) + " is out of range (" + compact(t.low) + " to " + compact(t.high) + ")");
  }
  return v;
}

Value read_item(const Type& t, const Given& g, const json& item) {
  Value v;
  switch (t.kind) {
    case Kind::Whole:
      v.whole = whole_item(t, g, item);
      break;
    case Kind::Unsigned:
      v.count = unsigned_item(g, item);
      break;
    case Kind::Size:
      if (item.is_boolean()) throw_usage(g.where + ": " + item.dump() + " is not a size");
      v.count = parse_size(shown_item(item), g.where);
      break;
    case Kind::Number:
      v.number = number_item(t, g, item);
      break;
    case Kind::Choice: {
      v.text = shown_item(item);
      v.whole = -1;
      for (std::size_t i = 0; i < t.choices.size(); ++i) {
        if (t.choices[i] == v.text) v.whole = static_cast<long long>(i);
      }
      if (v.whole < 0 && t.alias) {
        if (const auto i = t.alias(v.text)) v.whole = *i;
      }
      if (v.whole < 0) throw_usage(g.where + ": unknown " + t.noun + " '" + v.text + "' (" + t.choices_text() + ")");
      v.text = t.choices[static_cast<std::size_t>(v.whole)];
      break;
    }
    case Kind::Text:
      if (!item.is_string()) throw_usage(g.where + ": " + item.dump() + " is not a string");
      v.text = item.get<std::string>();
      break;
    case Kind::Presence:
      if (!item.is_boolean() && !item.is_string()) throw_usage(g.where + ": " + item.dump() + " is not true or false");
      v.present = item.is_boolean() ? item.get<bool>() : true;
      break;
  }
  return v;
}

std::vector<json> items_of(const Type& t, const Given& g) {
  std::vector<json> items;
  if (g.value.is_array()) {
    if (g.value.empty()) throw_usage(g.where + ": an empty list");
    for (const auto& item : g.value) {
      if (item.is_array() || item.is_object()) throw_usage(g.where + ": a list of single values is expected");
      if (item.is_null()) throw_usage(g.where + ": no value given");
      items.push_back(item);
    }
  } else if (g.value.is_string()) {
    for (const auto& part : split_commas(g.value.get<std::string>())) items.emplace_back(part);
  } else {
    items.push_back(g.value);
  }
  if (items.empty()) throw_usage(g.where + ": no " + t.noun + " given");
  return items;
}

}  // namespace

std::string Type::choices_text() const {
  if (!listed.empty()) return listed;
  std::string out;
  for (const auto& c : choices) out += (out.empty() ? "" : " ") + c;
  return all ? out + ", or all" : out;
}

Type whole(long long min, long long max) {
  Type t;
  t.kind = Kind::Whole;
  t.min = min;
  t.max = max;
  return t;
}

Type unsigned64() {
  Type t;
  t.kind = Kind::Unsigned;
  return t;
}

Type size() {
  Type t;
  t.kind = Kind::Size;
  return t;
}

Type positive() { return number(0, std::numeric_limits<double>::infinity(), true); }

Type number(double low, double high, bool above_low) {
  Type t;
  t.kind = Kind::Number;
  t.low = low;
  t.high = high;
  t.above_low = above_low;
  return t;
}

Type choice(std::vector<std::string> names, std::string noun, std::string listed) {
  Type t;
  t.kind = Kind::Choice;
  t.choices = std::move(names);
  t.noun = std::move(noun);
  t.listed = std::move(listed);
  return t;
}

Type text() { return Type{}; }

Type presence() {
  Type t;
  t.kind = Kind::Presence;
  return t;
}

Type list_of(Type item, bool unique) {
  item.list = true;
  item.unique = unique;
  return item;
}

std::string Given::shown() const { return shown_item(value); }

Value read(const Type& t, const Given& g) {
  if (g.value.is_null()) throw_usage(g.where + ": no value given");
  if (g.value.is_object()) throw_usage(g.where + ": " + g.value.dump() + " is not a single value");
  if (!t.list) {
    if (g.value.is_array()) throw_usage(g.where + ": takes one value, not a list");
    return read_item(t, g, g.value);
  }
  const std::vector<json> items = items_of(t, g);
  Value out;
  if (t.all && items.size() == 1 && items[0] == "all") {
    for (std::size_t i = 0; i < t.choices.size(); ++i) {
      Value v;
      v.whole = static_cast<long long>(i);
      v.text = t.choices[i];
      out.items.push_back(v);
    }
    return out;
  }
  for (const auto& item : items) {
    Value v = read_item(t, g, item);
    if (t.unique) {
      for (const auto& seen : out.items) {
        const bool same = t.kind == Kind::Choice ? seen.whole == v.whole
                          : t.kind == Kind::Whole ? seen.whole == v.whole
                                                  : seen.text == v.text && seen.count == v.count &&
                                                        seen.number == v.number;
        if (!same) continue;
        const std::string named = t.kind == Kind::Whole ? std::to_string(v.whole) : "'" + shown_item(item) + "'";
        throw_usage(g.where + ": " + named + " is given twice");
      }
    }
    out.items.push_back(std::move(v));
  }
  return out;
}

std::string Spec::flag_name() const {
  if (flag.empty()) return "key \"" + key + "\"";
  return (letter ? std::string("-") + letter + "/" : std::string()) + "--" + flag;
}

void Origins::add(const Spec& spec, std::optional<Given> given) {
  by_flag_[spec.flag.empty() ? spec.key : spec.flag] = {spec.flag_name(), std::move(given)};
}

const Given* Origins::find(const std::string& flag) const {
  const auto it = by_flag_.find(flag);
  return it == by_flag_.end() || !it->second.second ? nullptr : &*it->second.second;
}

bool Origins::given(const std::string& flag) const {
  const Given* g = find(flag);
  return g != nullptr && g->from != Given::From::Default;
}

std::string Origins::name(const std::string& flag) const {
  if (const Given* g = find(flag)) return g->where;
  const auto it = by_flag_.find(flag);
  return it == by_flag_.end() ? "--" + flag : it->second.first;
}

std::string Origins::shown(const std::string& flag) const {
  const Given* g = find(flag);
  return g ? g->shown() : std::string();
}

std::string DocumentEntry::where(const std::string& key) const {
  const int line = line_of ? line_of(key.empty() ? pointer : suite::pointer_child(pointer, key)) : 0;
  std::string out = prefix + path + (line > 0 ? ":" + std::to_string(line) : std::string());
  if (!label.empty()) out += ": " + label;
  if (!key.empty()) out += ": key \"" + key + "\"";
  return out;
}

void DocumentEntry::refuse(const std::string& key, const std::string& why) const {
  throw_usage(where(key) + ": " + why);
}

std::string key_list(const std::vector<const Spec*>& specs, const std::vector<std::string>& also) {
  std::string out;
  for (const auto& k : also) out += (out.empty() ? "" : " ") + k;
  for (const Spec* s : specs) {
    if (!s->key.empty()) out += (out.empty() ? "" : " ") + s->key;
  }
  return out;
}

void check_keys(const DocumentEntry& entry, const std::vector<const Spec*>& specs,
                const std::vector<std::string>& also) {
  std::vector<std::string> keys = also;
  for (const Spec* s : specs) {
    if (!s->key.empty()) keys.push_back(s->key);
  }
  for (const auto& item : entry.entry->items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
    const std::string guess = closest_name(item.key(), keys);
    entry.refuse(item.key(), "unknown key" + (guess.empty() ? std::string() : " (did you mean \"" + guess + "\"?)") +
                                 " (the keys of this kind: " + key_list(specs, also) + ")");
  }
}

std::optional<Given> choose(const Spec& spec, const Flags& flags, const DocumentEntry* document) {
  if (const auto it = flags.find(spec.flag.empty() ? spec.key : spec.flag); it != flags.end() && !it->first.empty()) {
    return it->second;
  }
  if (document && !spec.key.empty() && document->entry->contains(spec.key)) {
    Given g;
    g.where = document->where(spec.key);
    g.from = Given::From::Document;
    g.value = document->entry->at(spec.key);
    g.folder = std::filesystem::path(document->path).parent_path().string();
    if (g.value.is_string() && g.value.get<std::string>().empty()) {
      throw_usage(g.where + ": an empty value");
    }
    return g;
  }
  if (spec.default_text) {
    Given g;
    g.where = spec.flag_name();
    g.from = Given::From::Default;
    g.value = *spec.default_text;
    return g;
  }
  return std::nullopt;
}

}  // namespace commsweep::settings
