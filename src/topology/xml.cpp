#include "topology/xml.hpp"

#include <cstdint>

namespace commsweep::topology {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A cursor over the text that counts lines as it goes.
class Reader {
 public:
  Reader(std::string_view text, const XmlLimits& limits) : text_(text), limits_(limits) {}

  XmlElement document() {
    prolog();
    if (at_end() || peek() != '<') fail("expected the root element");
    XmlElement root = element(1);
    misc();
    if (!at_end()) fail("content after the root element </" + root.name + ">");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const { throw XmlError(line_, reason); }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  bool starts_with(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  void advance(std::size_t n = 1) {
    for (std::size_t i = 0; i < n && pos_ < text_.size(); ++i) {
      if (text_[pos_++] == '\n') ++line_;
    }
  }

  void skip_spaces() {
    while (!at_end() && is_space(peek())) advance();
  }

  void skip_past(std::string_view end, const char* what) {
    const int start = line_;
    const auto found = text_.find(end, pos_);
    if (found == std::string_view::npos) throw XmlError(start, std::string("unterminated ") + what);
    advance(found + end.size() - pos_);
  }

  // Declaration, comments and processing instructions before the root; a DOCTYPE is refused.
  void prolog() {
    if (starts_with("\xEF\xBB\xBF")) advance(3);  // a UTF-8 byte order mark
    misc();
  }

  void misc() {
    for (;;) {
      skip_spaces();
      if (starts_with("<?")) {
        skip_past("?>", "processing instruction or XML declaration");
      } else if (starts_with("<!--")) {
        comment();
      } else if (starts_with("<!")) {
        refuse_markup_declaration();
      } else {
        return;
      }
    }
  }

  void refuse_markup_declaration() {
    if (starts_with("<!DOCTYPE") || starts_with("<!doctype")) {
      fail("DOCTYPE refused: a topology file needs no document type, and entity definitions or "
           "external references in one are never expanded or fetched");
    }
    if (starts_with("<![CDATA[")) fail("CDATA section refused: a topology file holds no text");
    fail("markup declaration refused ('<!' not followed by a comment)");
  }

  void comment() {
    advance(4);
    const int start = line_;
    const auto found = text_.find("--", pos_);
    if (found == std::string_view::npos) throw XmlError(start, "unterminated comment");
    advance(found - pos_);
    if (!starts_with("-->")) fail("'--' inside a comment");
    advance(3);
  }

  std::string name() {
    if (at_end() || !is_name_start(peek())) fail("expected a name");
    const std::size_t start = pos_;
    while (!at_end() && is_name_char(peek())) advance();
    return std::string(text_.substr(start, pos_ - start));
  }

  // &lt; &gt; &amp; &quot; &apos; and &#N; / &#xH; only: no other entity exists here.
  void reference(std::string& out) {
    const auto semi = text_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) fail("'&' that starts no reference (write &amp;)");
    const std::string_view ref = text_.substr(pos_ + 1, semi - pos_ - 1);
    if (ref == "lt") out += '<';
    else if (ref == "gt") out += '>';
    else if (ref == "amp") out += '&';
    else if (ref == "quot") out += '"';
    else if (ref == "apos") out += '\'';
    else if (ref.size() > 1 && ref[0] == '#') out_char_reference(ref, out);
    else fail("unknown entity '&" + std::string(ref) + ";' (entities are not expanded)");
    advance(semi + 1 - pos_);
  }

  void out_char_reference(std::string_view ref, std::string& out) {
    const bool hex = ref[1] == 'x';
    const std::string digits(ref.substr(hex ? 2 : 1));
    std::uint32_t cp = 0;
    if (digits.empty()) fail("empty character reference");
    for (const char c : digits) {
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      else if (hex && c >= 'a' && c <= 'f') v = c - 'a' + 10;
      else if (hex && c >= 'A' && c <= 'F') v = c - 'A' + 10;
      if (v < 0) fail("bad character reference '&" + std::string(ref) + ";'");
      cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(v);
      if (cp > 0x10FFFF) fail("character reference out of range");
    }
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) fail("character reference to an invalid character");
    append_utf8(out, cp);
  }

  std::string attribute_value() {
    if (at_end() || (peek() != '"' && peek() != '\'')) fail("attribute value must be quoted");
    const char quote = peek();
    advance();
    std::string value;
    for (;;) {
      if (at_end()) fail("unterminated attribute value");
      const char c = peek();
      if (c == quote) break;
      if (c == '<') fail("'<' inside an attribute value");
      if (c == '&') {
        reference(value);
        continue;
      }
      value += c;
      advance();
    }
    advance();
    return value;
  }

  // After the name: attributes, then '>' (children follow) or '/>'. Returns true for '/>'.
  bool attributes(XmlElement& e) {
    for (;;) {
      const bool spaced = !at_end() && is_space(peek());
      skip_spaces();
      if (at_end()) fail("unterminated start tag <" + e.name + ">");
      if (starts_with("/>")) {
        advance(2);
        return true;
      }
      if (peek() == '>') {
        advance();
        return false;
      }
      if (!spaced) fail("expected a space between attributes of <" + e.name + ">");
      std::string key = name();
      skip_spaces();
      if (at_end() || peek() != '=') fail("attribute '" + key + "' of <" + e.name + "> has no '='");
      advance();
      skip_spaces();
      if (e.attribute(key) != nullptr) fail("attribute '" + key + "' repeated in <" + e.name + ">");
      std::string value = attribute_value();
      e.attributes.emplace_back(std::move(key), std::move(value));
    }
  }

  XmlElement element(int depth) {
    if (depth > limits_.max_depth) fail("elements nested deeper than " + std::to_string(limits_.max_depth));
    if (++elements_ > limits_.max_elements) fail("more than " + std::to_string(limits_.max_elements) + " elements");
    XmlElement e;
    e.line = line_;
    advance();  // '<'
    e.name = name();
    if (attributes(e)) return e;
    content(e, depth);
    return e;
  }

  // Children, comments and (ignored) text up to the matching end tag.
  void content(XmlElement& e, int depth) {
    for (;;) {
      if (at_end()) throw XmlError(e.line, "<" + e.name + "> is never closed");
      const char c = peek();
      if (c == '&') {
        std::string ignored;
        reference(ignored);
      } else if (c != '<') {
        advance();
      } else if (starts_with("</")) {
        advance(2);
        const std::string closing = name();
        if (closing != e.name) {
          fail("</" + closing + "> closes <" + e.name + "> opened on line " + std::to_string(e.line));
        }
        skip_spaces();
        if (at_end() || peek() != '>') fail("expected '>' after </" + closing);
        advance();
        return;
      } else if (starts_with("<!--")) {
        comment();
      } else if (starts_with("<!")) {
        refuse_markup_declaration();
      } else if (starts_with("<?")) {
        skip_past("?>", "processing instruction");
      } else {
        e.children.push_back(element(depth + 1));
      }
    }
  }

  std::string_view text_;
  const XmlLimits& limits_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t elements_ = 0;
};

}  // namespace

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

XmlError::XmlError(int line, const std::string& reason)
    : std::runtime_error("line " + std::to_string(line) + ": " + reason), line_(line), reason_(reason) {}

XmlElement parse_xml(std::string_view text, const XmlLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw XmlError(1, "file larger than " + std::to_string(limits.max_bytes) + " bytes");
  }
  if (text.find('\0') != std::string_view::npos) throw XmlError(1, "NUL byte in the file (not text)");
  return Reader(text, limits).document();
}

std::string escape_xml_attribute(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace commsweep::topology
