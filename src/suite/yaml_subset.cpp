#include "suite/yaml_subset.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

// The reading is yaml-cpp's (its event parser, so that nothing is resolved before it is
// checked); what stays here is the suite files' policy: which YAML constructs a suite may use,
// the typing of plain scalars, duplicate keys, the depth, and the line of every value.
namespace commsweep::suite {
namespace {

using nlohmann::json;

// Plain scalars as YAML 1.2's core schema types them (without hex, octal, .inf or .nan, which
// a suite never needs): null, booleans, decimal integers within 64 bits, decimals; anything
// else is text (a size like 64K, or an integer past 64 bits, which the reader refuses by name).
json typed_plain(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  const std::size_t digits_from = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  const std::size_t int_digits = i - digits_from;
  if (int_digits > 0 && i == s.size()) {
    errno = 0;
    if (s[0] == '-') {
      const long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) return v;
    } else {
      const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
      if (errno == 0) return v;
    }
    return s;
  }
  std::size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return s;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const std::size_t exp_from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == exp_from) return s;
  }
  if (i != s.size()) return s;
  const double v = std::strtod(s.c_str(), nullptr);
  return std::isfinite(v) ? json(v) : json(s);
}

// yaml-cpp's tag of an untagged node: "?" for a plain scalar or any collection, "!" for a
// quoted (or block) scalar. Anything else was written as a tag.
constexpr const char* kPlain = "?";
constexpr const char* kNonPlain = "!";

// Builds the JSON value from yaml-cpp's events, refusing what a suite file does not use.
class Builder : public YAML::EventHandler {
 public:
  Builder(const std::string& text, Document& doc) : text_(text), doc_(doc) {
    std::size_t start = 0;
    for (;;) {
      line_starts_.push_back(start);
      const auto nl = text.find('\n', start);
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }

  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 1) {
      first_indent_ = indent(mark);
      return;
    }
    // yaml-cpp starts another document where the first one's top level ends.
    if (text_.compare(offset(line_mark(mark.line)), 3, "---") == 0) {
      fail(mark, "a second document (---) in one file is not supported");
    }
    if (indent(mark) < first_indent_) fail(mark, "indented less than the document's first line");
    fail(mark, "does not continue the document's top level (sequence items and keys cannot mix there)");
  }
  void OnDocumentEnd() override {}

  void OnAnchor(const YAML::Mark& mark, const std::string&) override {
    fail(mark, "anchors (&) are not supported: write the value out");
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    fail(mark, "aliases (*) are not supported: write the value out");
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    check_anchor(mark, anchor);
    if (at_key()) fail(mark, "a key is empty");
    if (!stack_.empty() && stack_.back().flow && (at(mark) == ',' || at(mark) == ']')) {
      fail(mark, "an empty item in a flow sequence");
    }
    add(mark, nullptr);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_anchor(mark, anchor);
    check_tag(mark, tag);
    const char first = at(mark);
    if (tag == kNonPlain && (first == '|' || first == '>')) {
      fail(mark, "block scalars (| >) are not supported: write the value on one line");
    }
    if (tag == kPlain && text_.compare(offset(mark), value.size(), value) != 0) {
      fail(mark.line + 2, "unexpected indentation: a plain value continued on the next line is "
                          "not supported (quote it, put it on one line, or line up the keys)");
    }
    if (value.find('\0') != std::string::npos) {
      fail(mark, "'\\u0000' (a NUL character) is not allowed");
    }
    if ((first == '\'' || first == '"') && !closed_quote(offset(mark))) {
      fail(mark, "a quoted string is not closed");
    }
    if (at_key()) {
      if (before(mark) == '?') fail(mark, "complex keys (?) are not supported");
      if (tag == kPlain && after(offset(mark) + value.size()) != ':') {
        fail(mark, "expected 'key: value' (a mapping's entry) but found '" + value + "'");
      }
      key(mark, value);
      return;
    }
    add(mark, tag == kPlain ? typed_plain(value) : json(value));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override {
    open(mark, tag, anchor, json::array());
    stack_.back().flow = style == YAML::EmitterStyle::Flow;
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override {
    if (style == YAML::EmitterStyle::Flow && at(mark) == '{') {
      fail(mark, "flow mappings ({ }) are not supported: use one 'key: value' per line");
    }
    if (style == YAML::EmitterStyle::Flow) {  // what yaml-cpp takes for a pair inside [ ]
      fail(mark, "a 'key: value' pair inside a flow sequence (flow mappings are not supported), "
                 "or a '[' never closed: quote the value, or close the ']'");
    }
    open(mark, tag, anchor, json::object());
  }
  void OnMapEnd() override { close(); }

 private:
  // An open mapping or sequence: its value, its pointer, and for a mapping the key waiting for
  // its value and the line of every key (for duplicates).
  struct Frame {
    json value;
    std::string pointer;
    bool flow = false;  // a [ ] sequence
    bool has_key = false;
    std::string key;
    int key_line = 0;
    std::map<std::string, int> key_lines;
  };

  [[noreturn]] static void fail(int line, const std::string& reason) { throw SyntaxError(line, reason); }
  [[noreturn]] static void fail(const YAML::Mark& mark, const std::string& reason) {
    fail(mark.line + 1, reason);
  }

  std::size_t offset(const YAML::Mark& mark) const {
    const auto line = static_cast<std::size_t>(mark.line);
    if (mark.line < 0 || line >= line_starts_.size()) return text_.size();
    return std::min(text_.size(), line_starts_[line] + static_cast<std::size_t>(mark.column));
  }
  // The indentation of the mark's line.
  int indent(const YAML::Mark& mark) const {
    const std::size_t start = offset(line_mark(mark.line));
    const std::size_t content = text_.find_first_not_of(' ', start);
    return static_cast<int>((content == std::string::npos ? text_.size() : content) - start);
  }
  static YAML::Mark line_mark(int line) {
    YAML::Mark m;
    m.line = line;
    return m;
  }
  // The character before the mark on its line, spaces skipped ('\0' at the line's start).
  char before(const YAML::Mark& mark) const {
    std::size_t i = offset(mark);
    const std::size_t start = offset(line_mark(mark.line));
    while (i > start && text_[i - 1] == ' ') --i;
    return i > start ? text_[i - 1] : '\0';
  }
  // The first character at or after `i` that is not a space.
  char after(std::size_t i) const {
    while (i < text_.size() && text_[i] == ' ') ++i;
    return i < text_.size() ? text_[i] : '\0';
  }
  // Whether the quoted scalar that opens at `i` closes ('' and \" do not close it).
  bool closed_quote(std::size_t i) const {
    const char quote = text_[i];
    for (++i; i < text_.size(); ++i) {
      if (quote == '"' && text_[i] == '\\') {
        ++i;
      } else if (text_[i] == quote) {
        if (quote == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') {
          ++i;
        } else {
          return true;
        }
      }
    }
    return false;
  }
  char at(const YAML::Mark& mark) const {
    const std::size_t i = offset(mark);
    return i < text_.size() ? text_[i] : '\0';
  }

  static void check_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) fail(mark, "anchors (&) are not supported: write the value out");
  }
  static void check_tag(const YAML::Mark& mark, const std::string& tag) {
    if (tag != kPlain && tag != kNonPlain && !tag.empty()) fail(mark, "tags (!) are not supported");
  }

  bool at_key() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().has_key;
  }

  void key(const YAML::Mark& mark, const std::string& name) {
    Frame& f = stack_.back();
    const auto [it, fresh] = f.key_lines.emplace(name, mark.line + 1);
    if (!fresh) {
      fail(mark, "duplicate key '" + name + "' (first on line " + std::to_string(it->second) + ")");
    }
    f.has_key = true;
    f.key = name;
    f.key_line = mark.line + 1;
  }

  // Where the next value goes: its pointer and its line (a mapping's value takes its key's line).
  std::string place(const YAML::Mark& mark, int& line) const {
    line = mark.line + 1;
    if (stack_.empty()) return "";
    const Frame& f = stack_.back();
    if (f.value.is_object()) {
      line = f.key_line;
      return pointer_child(f.pointer, f.key);
    }
    return f.pointer + "/" + std::to_string(f.value.size());
  }

  void add(const YAML::Mark& mark, json value) {
    int line = 0;
    const std::string pointer = place(mark, line);
    doc_.lines.emplace(pointer, line);
    store(std::move(value));
  }

  void store(json value) {
    if (stack_.empty()) {
      doc_.value = std::move(value);
      return;
    }
    Frame& f = stack_.back();
    if (f.value.is_object()) {
      f.value[f.key] = std::move(value);
      f.has_key = false;
    } else {
      f.value.push_back(std::move(value));
    }
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, json empty) {
    check_anchor(mark, anchor);
    check_tag(mark, tag);
    if (at_key()) fail(mark, "complex keys are not supported");
    if (static_cast<int>(stack_.size()) >= kMaxDepth) {
      fail(mark, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    int line = 0;
    Frame f;
    f.pointer = place(mark, line);
    f.value = std::move(empty);
    doc_.lines.emplace(f.pointer, line);
    stack_.push_back(std::move(f));
  }

  void close() {
    json value = std::move(stack_.back().value);
    stack_.pop_back();
    store(std::move(value));
  }

  const std::string& text_;
  Document& doc_;
  std::vector<std::size_t> line_starts_;
  std::vector<Frame> stack_;
  int documents_ = 0;
  int first_indent_ = 0;
};

// What yaml-cpp reads without an event to refuse it by: directives, the document end marker,
// and tabs in the indentation (YAML indents with spaces only).
void check_lines(const std::string& text) {
  int line = 1;
  for (std::size_t start = 0; start < text.size(); ++line) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view l(text.data() + start, end - start);
    if (!l.empty() && l[0] == '%') throw SyntaxError(line, "directives (%) are not supported");
    if (l.substr(0, 3) == "..." && (l.size() == 3 || l[3] == ' ' || l[3] == '\r')) {
      throw SyntaxError(line, "document end markers (...) are not supported");
    }
    const auto content = l.find_first_not_of(" \t");
    if (l.substr(0, content).find('\t') != std::string_view::npos &&
        content != std::string_view::npos && l[content] != '#' && l[content] != '\r') {
      throw SyntaxError(line, "a tab in the indentation (YAML indents with spaces)");
    }
    start = end + 1;
  }
}

// yaml-cpp's message, with what it most often means in a suite file.
std::string explain(const std::string& text, const YAML::ParserException& e) {
  const std::string& msg = e.msg;
  std::string hint;
  if (msg.find("anchor") != std::string::npos) {
    hint = "aliases (*) are not supported: write the value out";
  } else if (msg.find("illegal map value") != std::string::npos) {
    hint = "': ' inside a value (a mapping cannot start here): quote the value";
  } else if (msg.find("unknown escape") != std::string::npos) {
    hint = "unknown escape in a double-quoted string";
  } else if (msg.find("end of map not found") != std::string::npos && !e.mark.is_null()) {
    // Where the next key was expected: the start of a line, or text after a value.
    std::size_t start = 0;
    for (int l = 0; l < e.mark.line && start != std::string::npos; ++l) {
      start = text.find('\n', start);
      if (start != std::string::npos) ++start;
    }
    const std::size_t at = start == std::string::npos ? text.size() : start + static_cast<std::size_t>(e.mark.column);
    const std::size_t content = start == std::string::npos ? text.size() : text.find_first_not_of(' ', start);
    if (at != content) {
      hint = "unexpected text after the value";
    } else if (at < text.size() && text[at] == '-') {
      hint = "a sequence item (-) among the keys of a mapping";
    } else {
      hint = "unexpected indentation (the keys of a mapping line up)";
    }
  }
  return hint.empty() ? "not valid YAML: " + msg : hint + " (yaml-cpp: " + msg + ")";
}

}  // namespace

Document parse_yaml_subset(const std::string& input) {
  check_text(input);
  // A UTF-8 byte order mark is dropped here, so that yaml-cpp's columns are this text's bytes.
  const std::string text = input.compare(0, 3, "\xEF\xBB\xBF") == 0 ? input.substr(3) : input;
  check_lines(text);
  Document doc;
  Builder builder(text, doc);
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::ParserException& e) {
    throw SyntaxError(e.mark.is_null() ? 0 : e.mark.line + 1, explain(text, e));
  } catch (const YAML::Exception& e) {  // anything else yaml-cpp throws is still bad input
    throw SyntaxError(e.mark.is_null() ? 0 : e.mark.line + 1, "not valid YAML: " + e.msg);
  }
  if (builder.documents() == 0) throw SyntaxError(1, "the document is empty");
  return doc;
}

}  // namespace commsweep::suite
