#include "suite/document.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "core/strings.hpp"
#include "suite/yaml_subset.hpp"

namespace commsweep::suite {
namespace {

using nlohmann::json;

// Bytes in a well-formed UTF-8 sequence that starts with `lead`, or 0 for a bad lead byte.
int sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Whether text[i..i+n) is one UTF-8 character: continuation bytes, no overlong forms, no
// surrogates, nothing past U+10FFFF.
bool well_formed(const std::string& text, std::size_t i, int n) {
  if (i + static_cast<std::size_t>(n) > text.size()) return false;
  const auto byte = [&](int k) { return static_cast<unsigned char>(text[i + k]); };
  for (int k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return false;
  }
  if (n == 3 && byte(0) == 0xE0 && byte(1) < 0xA0) return false;
  if (n == 3 && byte(0) == 0xED && byte(1) >= 0xA0) return false;
  if (n == 4 && byte(0) == 0xF0 && byte(1) < 0x90) return false;
  if (n == 4 && byte(0) == 0xF4 && byte(1) >= 0x90) return false;
  return true;
}

int line_at_byte(const std::string& text, std::size_t byte) {
  int line = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

int Document::line_of(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    const auto it = lines.find(p);
    if (it != lines.end()) return it->second;
    if (p.empty()) return 0;
    p.erase(p.rfind('/'));
  }
}

std::string pointer_child(const std::string& parent, const std::string& key) {
  std::string out = parent + "/";
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

void check_text(const std::string& text) {
  if (text.size() > kMaxDocumentBytes) {
    throw SyntaxError(0, "larger than " + std::to_string(kMaxDocumentBytes >> 20) +
                             " MiB: not a suite file");
  }
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
      throw SyntaxError(line, "control character " + std::to_string(c) + " (not text)");
    }
    const int n = sequence_length(c);
    if (n == 0 || !well_formed(text, i, n)) throw SyntaxError(line, "not UTF-8 text");
    i += static_cast<std::size_t>(n);
  }
}

Document parse_json_document(const std::string& text) {
  check_text(text);
  // Per open object, the keys seen so far: nlohmann keeps the last of two equal keys silently.
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t watch = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth) {
      throw SyntaxError(0, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      throw SyntaxError(0, "duplicate key \"" + parsed.get<std::string>() + "\"");
    }
    return true;
  };
  Document doc;
  try {
    doc.value = json::parse(text, watch);
  } catch (const json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string why = e.what();
    const auto colon = why.find("parse error");
    throw SyntaxError(line_at_byte(text, e.byte == 0 ? 0 : e.byte - 1),
                      "not valid JSON: " + (colon == std::string::npos ? why : why.substr(colon)));
  } catch (const json::exception& e) {
    // A number past double's range ("1e999") is out_of_range, not a parse error.
    const std::string why = e.what();
    const auto bracket = why.find("] ");
    throw SyntaxError(0, "not valid JSON: " + (bracket == std::string::npos ? why : why.substr(bracket + 2)));
  }
  return doc;
}

std::string sweeps_pointer(const Document& doc) {
  const std::vector<std::string> keys = {"sweeps", "description"};
  // The first unknown key as the file has it (nlohmann's objects are sorted by key).
  std::string first;
  int first_line = 0;
  if (doc.value.is_object()) {
    for (const auto& item : doc.value.items()) {
      if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
      const int line = doc.line_of(pointer_child("", item.key()));
      if (first.empty() || (line > 0 && line < first_line)) first = item.key(), first_line = line;
    }
  }
  if (!first.empty()) {
    const std::string guess = closest_name(first, keys);
    if (guess.empty() && !doc.value.contains("sweeps")) {
      throw SyntaxError(first_line, "key \"" + first + "\": a mapping of one sweep's keys, not a suite: a suite " +
                                        "file is a list of sweeps; make these keys its one sweep: a first line " +
                                        "\"- kind: ep\" (or the sweep's kind), the keys under it indented by two " +
                                        "spaces (docs/suites.md)");
    }
    throw SyntaxError(first_line, "unknown key \"" + first + "\"" +
                                      (guess.empty() ? std::string() : " (did you mean \"" + guess + "\"?)") +
                                      " (a suite's keys: sweeps description)");
  }
  const std::string list = doc.value.is_object() ? "/sweeps" : "";
  const nlohmann::json* sweeps = doc.value.is_object() ? (doc.value.contains("sweeps") ? &doc.value.at("sweeps") : nullptr)
                                                       : &doc.value;
  if (sweeps == nullptr || !sweeps->is_array() || sweeps->empty()) {
    throw SyntaxError(doc.line_of(list),
                      "a suite is a non-empty list of sweeps (or a mapping whose key \"sweeps\" holds one)");
  }
  return list;
}

Document parse_document(const std::string& path, const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool json_text = first != std::string::npos && (text[first] == '{' || text[first] == '[');
  if (ends_with(path, ".json") || json_text) return parse_json_document(text);
  return parse_yaml_subset(text);
}

}  // namespace commsweep::suite
