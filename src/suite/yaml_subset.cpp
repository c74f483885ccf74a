#include "suite/yaml_subset.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace commsweep::suite {
namespace {

using nlohmann::json;

// One line that holds something: its number, its indentation (spaces) and the rest.
struct Line {
  int number;
  int indent;
  std::string text;
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// "- x" or a lone "-": a block sequence item ("-5" is a scalar).
bool is_item(const std::string& text) {
  return text == "-" || (text.size() > 1 && text[0] == '-' && is_blank(text[1]));
}

// Where a value that ended at `pos` may be followed by nothing but a comment.
bool only_comment_after(const std::string& text, std::size_t pos) {
  const std::size_t start = pos;
  while (pos < text.size() && is_blank(text[pos])) ++pos;
  return pos == text.size() || (text[pos] == '#' && (pos > start || pos == 0));
}

std::string trim_right(std::string s) {
  while (!s.empty() && is_blank(s.back())) s.pop_back();
  return s;
}

void append_utf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The constructs of full YAML this subset refuses, by their first character.
const char* refused_construct(const std::string& text, std::size_t pos) {
  const char c = text[pos];
  const bool spaced = pos + 1 == text.size() || is_blank(text[pos + 1]);
  switch (c) {
    case '&': return "anchors (&) are not supported: write the value out";
    case '*': return "aliases (*) are not supported: write the value out";
    case '!': return "tags (!) are not supported";
    case '{': return "flow mappings ({ }) are not supported: use one 'key: value' per line";
    case '|':
    case '>': return "block scalars (| >) are not supported: write the value on one line";
    case '%': return "directives (%) are not supported";
    case '@':
    case '`': return "'@' and '`' are reserved in YAML: quote the value";
    case '?': return spaced ? "complex keys (?) are not supported" : nullptr;
    default: return nullptr;
  }
}

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
    return s;  // past 64 bits: left as text for the reader to refuse by name
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

class Parser {
 public:
  explicit Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  Document run() {
    if (lines_.empty()) fail(1, "the document is empty");
    doc_.value = block(lines_[0].indent, "", 0);
    if (pos_ < lines_.size() && lines_[pos_].indent < lines_[0].indent) {
      fail(lines_[pos_].number, "indented less than the document's first line");
    }
    if (pos_ < lines_.size()) {
      fail(lines_[pos_].number, "does not continue the document's top level (sequence items "
                                "and mapping keys cannot share a level)");
    }
    return std::move(doc_);
  }

 private:
  [[noreturn]] static void fail(int line, const std::string& reason) { throw SyntaxError(line, reason); }

  static void check_depth(int line, int depth) {
    if (depth > kMaxDepth) fail(line, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }

  // The value whose first line is lines_[pos_], indented by `indent`.
  json block(int indent, const std::string& pointer, int depth) {
    const Line& line = lines_[pos_];
    check_depth(line.number, depth);
    doc_.lines.emplace(pointer, line.number);
    if (is_item(line.text)) return sequence(indent, pointer, depth);
    if (key_colon(line.text, line.number) != std::string::npos) return mapping(indent, pointer, depth);
    json value = inline_value(line.text, line.number, pointer, depth);
    ++pos_;
    if (pos_ < lines_.size() && lines_[pos_].indent >= indent) {
      fail(lines_[pos_].number, "a plain value continued on the next line is not supported: "
                                "write it on one line, or quote it");
    }
    return value;
  }

  json sequence(int indent, const std::string& pointer, int depth) {
    json items = json::array();
    while (pos_ < lines_.size() && lines_[pos_].indent >= indent) {
      Line& line = lines_[pos_];
      if (line.indent > indent) fail(line.number, "unexpected indentation");
      if (!is_item(line.text)) break;  // the key after a sequence written at its key's indent
      const std::string child = pointer + "/" + std::to_string(items.size());
      doc_.lines[child] = line.number;
      std::size_t from = 1;
      while (from < line.text.size() && is_blank(line.text[from])) ++from;
      if (only_comment_after(line.text, 1)) {
        ++pos_;
        const bool nested = pos_ < lines_.size() && lines_[pos_].indent > indent;
        items.push_back(nested ? block(lines_[pos_].indent, child, depth + 1) : json(nullptr));
      } else if (is_item(line.text.substr(from)) ||
                 key_colon(line.text.substr(from), line.number) != std::string::npos) {
        // "- key: value" or "- - x": the rest of the line is the first line of a block
        // indented to where it starts, as YAML reads it.
        line.indent += static_cast<int>(from);
        line.text.erase(0, from);
        items.push_back(block(line.indent, child, depth + 1));
      } else {
        items.push_back(inline_value(line.text.substr(from), line.number, child, depth + 1));
        ++pos_;
      }
    }
    return items;
  }

  json mapping(int indent, const std::string& pointer, int depth) {
    json object = json::object();
    while (pos_ < lines_.size() && lines_[pos_].indent >= indent) {
      const Line line = lines_[pos_];
      if (line.indent > indent) fail(line.number, "unexpected indentation");
      if (is_item(line.text)) fail(line.number, "a sequence item (-) among the keys of a mapping");
      const std::size_t colon = key_colon(line.text, line.number);
      if (colon == std::string::npos) {
        fail(line.number, "expected 'key: value' (a mapping's entry) but found '" + line.text + "'");
      }
      const std::string key = parse_key(line.text.substr(0, colon), line.number);
      if (object.contains(key)) {
        fail(line.number, "duplicate key '" + key + "' (first on line " +
                              std::to_string(doc_.lines[pointer_child(pointer, key)]) + ")");
      }
      const std::string child = pointer_child(pointer, key);
      doc_.lines[child] = line.number;
      if (only_comment_after(line.text, colon + 1)) {
        ++pos_;
        if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
          object[key] = block(lines_[pos_].indent, child, depth + 1);
        } else if (pos_ < lines_.size() && lines_[pos_].indent == indent && is_item(lines_[pos_].text)) {
          check_depth(lines_[pos_].number, depth + 1);
          object[key] = sequence(indent, child, depth + 1);
        } else {
          object[key] = nullptr;
        }
      } else {
        std::size_t from = colon + 1;
        while (is_blank(line.text[from])) ++from;
        object[key] = inline_value(line.text.substr(from), line.number, child, depth + 1);
        ++pos_;
      }
    }
    return object;
  }

  // Where the ':' that ends a key is ("key: value", "key:"), or npos for no key.
  static std::size_t key_colon(const std::string& text, int line) {
    std::size_t i = 0;
    if (text[0] == '"' || text[0] == '\'') {
      quoted(text, i, line);
      while (i < text.size() && is_blank(text[i])) ++i;
      const bool ends = i < text.size() && text[i] == ':' && (i + 1 == text.size() || is_blank(text[i + 1]));
      return ends ? i : std::string::npos;
    }
    if (text[0] == '[') return std::string::npos;
    for (; i < text.size(); ++i) {
      if (text[i] == '#' && i > 0 && is_blank(text[i - 1])) return std::string::npos;
      if (text[i] == ':' && (i + 1 == text.size() || is_blank(text[i + 1]))) return i;
    }
    return std::string::npos;
  }

  static std::string parse_key(const std::string& raw, int line) {
    const std::string text = trim_right(raw);
    if (text.empty()) fail(line, "a key is empty");
    if (const char* why = refused_construct(text, 0)) fail(line, why);
    if (text[0] == '{' || text[0] == '[') fail(line, "complex keys are not supported");
    if (text[0] == '"' || text[0] == '\'') {
      std::size_t i = 0;
      std::string key = quoted(text, i, line);
      if (i != text.size()) fail(line, "unexpected text after the quoted key");
      return key;
    }
    return text;
  }

  // A quoted string starting at text[i]; leaves i after the closing quote.
  static std::string quoted(const std::string& text, std::size_t& i, int line) {
    const char quote = text[i++];
    std::string out;
    for (;;) {
      if (i >= text.size()) {
        fail(line, "a quoted string is not closed on its line (multi-line strings are not supported)");
      }
      const char c = text[i++];
      if (c == quote) {
        if (quote == '\'' && i < text.size() && text[i] == '\'') {
          out += '\'';
          ++i;
          continue;
        }
        return out;
      }
      if (c == '\\' && quote == '"') {
        out += escape(text, i, line);
        continue;
      }
      out += c;
    }
  }

  static std::string escape(const std::string& text, std::size_t& i, int line) {
    if (i >= text.size()) fail(line, "a quoted string is not closed on its line");
    const char c = text[i++];
    switch (c) {
      case '"': return "\"";
      case '\\': return "\\";
      case '/': return "/";
      case 'n': return "\n";
      case 't': return "\t";
      case 'r': return "\r";
      case 'b': return "\b";
      case 'f': return "\f";
      case 'u': break;
      default: fail(line, std::string("unknown escape '\\") + c + "' in a double-quoted string");
    }
    unsigned code = 0;
    for (int k = 0; k < 4; ++k, ++i) {
      const char h = i < text.size() ? text[i] : 'x';
      const int digit = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
      if (digit < 0) fail(line, "'\\u' needs four hex digits");
      code = code * 16 + static_cast<unsigned>(digit);
    }
    if (code >= 0xD800 && code <= 0xDFFF) fail(line, "'\\u' of a surrogate is not supported");
    if (code == 0) fail(line, "'\\u0000' (a NUL character) is not allowed");
    std::string out;
    append_utf8(out, code);
    return out;
  }

  // A value that begins and ends on this line: quoted, a flow sequence, or plain.
  json inline_value(const std::string& text, int line, const std::string& pointer, int depth) {
    check_depth(line, depth);
    if (const char* why = refused_construct(text, 0)) fail(line, why);
    std::size_t i = 0;
    json value;
    if (text[0] == '"' || text[0] == '\'') {
      value = quoted(text, i, line);
    } else if (text[0] == '[') {
      value = flow_sequence(text, i, line, pointer, depth);
    } else {
      return plain(text, line);
    }
    if (!only_comment_after(text, i)) {
      fail(line, "unexpected text after the value: '" + text.substr(i) + "'");
    }
    return value;
  }

  static json plain(const std::string& text, int line) {
    if (is_item(text)) fail(line, "a sequence item (-) must begin its own line");
    std::size_t end = 0;
    while (end < text.size() && !(text[end] == '#' && end > 0 && is_blank(text[end - 1]))) ++end;
    const std::string value = trim_right(text.substr(0, end));
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (value[i] == ':' && (i + 1 == value.size() || is_blank(value[i + 1]))) {
        fail(line, "': ' inside a value (a mapping cannot start here): quote the value");
      }
    }
    return typed_plain(value);
  }

  json flow_sequence(const std::string& text, std::size_t& i, int line, const std::string& pointer,
                     int depth) {
    check_depth(line, depth);
    ++i;  // '['
    json items = json::array();
    for (;;) {
      while (i < text.size() && is_blank(text[i])) ++i;
      if (i >= text.size() || text[i] == '#') {
        fail(line, "a flow sequence is not closed on its line ('[' ... ']' must share a line)");
      }
      if (text[i] == ']') {
        ++i;
        return items;
      }
      const std::string child = pointer + "/" + std::to_string(items.size());
      doc_.lines[child] = line;
      if (const char* why = refused_construct(text, i)) fail(line, why);
      if (text[i] == '[') {
        items.push_back(flow_sequence(text, i, line, child, depth + 1));
      } else if (text[i] == '"' || text[i] == '\'') {
        items.push_back(quoted(text, i, line));
      } else {
        items.push_back(flow_plain(text, i, line));
      }
      while (i < text.size() && is_blank(text[i])) ++i;
      if (i < text.size() && text[i] == ',') {
        ++i;
      } else if (i >= text.size() || text[i] == '#') {
        fail(line, "a flow sequence is not closed on its line ('[' ... ']' must share a line)");
      } else if (text[i] != ']') {
        fail(line, "expected ',' or ']' in a flow sequence");
      }
    }
  }

  static json flow_plain(const std::string& text, std::size_t& i, int line) {
    const std::size_t from = i;
    while (i < text.size() && text[i] != ',' && text[i] != ']' && text[i] != '[' &&
           text[i] != '{' && text[i] != '}' && !(text[i] == '#' && is_blank(text[i - 1]))) {
      if (text[i] == ':' && (i + 1 == text.size() || is_blank(text[i + 1]))) {
        fail(line, "': ' inside a flow sequence (flow mappings are not supported): quote the value");
      }
      ++i;
    }
    const std::string value = trim_right(text.substr(from, i - from));
    if (value.empty()) fail(line, "an empty item in a flow sequence");
    return typed_plain(value);
  }

  std::vector<Line> lines_;
  std::size_t pos_ = 0;
  Document doc_;
};

// The lines that hold something; the document markers and directives dealt with.
std::vector<Line> content_lines(const std::string& text) {
  std::vector<Line> lines;
  std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a byte-order mark
  for (int number = 1; start <= text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string raw = text.substr(start, end - start);
    start = end + 1;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    std::size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    std::size_t body = indent;
    while (body < raw.size() && is_blank(raw[body])) ++body;
    if (body == raw.size() || raw[body] == '#') continue;  // blank or a comment
    if (body != indent) throw SyntaxError(number, "a tab in the indentation (YAML allows spaces only)");
    std::string content = trim_right(raw.substr(indent));
    if (indent == 0 && content[0] == '%') throw SyntaxError(number, "directives (%) are not supported");
    const bool marker = indent == 0 && (content == "---" || content.compare(0, 4, "--- ") == 0);
    if (marker && lines.empty() && only_comment_after(content, 3)) continue;
    if (marker) throw SyntaxError(number, "a second document ('---'): a suite file holds one");
    if (indent == 0 && (content == "..." || content.compare(0, 4, "... ") == 0)) {
      throw SyntaxError(number, "document end markers ('...') are not supported");
    }
    lines.push_back(Line{number, static_cast<int>(indent), std::move(content)});
  }
  return lines;
}

}  // namespace

Document parse_yaml_subset(const std::string& text) {
  check_text(text);
  return Parser(content_lines(text)).run();
}

}  // namespace commsweep::suite
