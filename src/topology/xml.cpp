#include "topology/xml.hpp"

#include <algorithm>
#include <cstdint>
#include <pugixml.hpp>

// The reading is pugixml's; what stays here is the policy of a file that comes from a ConfigMap
// or a user: no DOCTYPE (entity definitions, external references), no CDATA, only the five
// predefined entities and character references, a bounded size, depth and element count, no
// repeated attribute, one root element, and every refusal naming its line.
namespace commsweep::topology {
namespace {

// pugixml keeps a DOCTYPE, CDATA, comments and PIs as nodes (so that they can be refused or
// skipped by position) and expands references (parse_escapes); an unknown entity it would keep
// as text, so every reference is checked first, in the text as written.
constexpr unsigned kParseOptions = pugi::parse_doctype | pugi::parse_cdata | pugi::parse_pi |
                                   pugi::parse_declaration | pugi::parse_comments |
                                   pugi::parse_escapes;

class Document {
 public:
  Document(std::string_view text, const XmlLimits& limits)
      : text_(text), buffer_(text), limits_(limits) {}

  XmlElement read() {
    const pugi::xml_parse_result parsed = doc_.load_buffer_inplace(
        buffer_.data(), buffer_.size(), kParseOptions, pugi::encoding_utf8);
    // What was read before an error is kept: a hostile depth is refused as such even where
    // the document never closes.
    check_limits();
    if (!parsed) fail_parse(parsed);
    return convert(root());
  }

 private:
  int line_at(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + offset, '\n'));
  }
  int line_of(const pugi::xml_node& node) const {
    return line_at(static_cast<std::size_t>(std::max<std::ptrdiff_t>(node.offset_debug(), 0)));
  }
  // Where a string pugixml returned starts in the text (the buffer is parsed in place).
  std::size_t offset_of(const char* s) const {
    return in_buffer(s) ? static_cast<std::size_t>(s - buffer_.data()) : 0;
  }
  // pugixml's empty strings may be its own constant, not a place in the buffer.
  bool in_buffer(const char* s) const {
    return s >= buffer_.data() && s < buffer_.data() + buffer_.size();
  }

  // The root element; refuses a DOCTYPE, a second element or text around it.
  pugi::xml_node root() const {
    pugi::xml_node root;
    for (const pugi::xml_node& n : doc_.children()) {
      switch (n.type()) {
        case pugi::node_doctype:
          throw XmlError(line_of(n),
                         "DOCTYPE refused: a topology file needs no document type, and entity "
                         "definitions or external references in one are never expanded or fetched");
        case pugi::node_cdata:
          throw XmlError(line_of(n), "CDATA section refused: a topology file holds no text");
        case pugi::node_element:
          if (root) throw XmlError(line_of(n), "content after the root element </" + std::string(root.name()) + ">");
          root = n;
          break;
        case pugi::node_pcdata:
          if (!blank(n.value())) {
            if (!root) throw XmlError(line_of(n), "expected the root element");
            throw XmlError(line_of(n), "content after the root element </" + std::string(root.name()) + ">");
          }
          break;
        default:  // the declaration, comments, processing instructions
          break;
      }
    }
    if (!root) throw XmlError(1, "expected the root element");
    // pugixml drops text outside the root element; a topology file has none.
    const std::size_t first = text_.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first != std::string_view::npos && text_[first] != '<') {
      throw XmlError(line_at(first), "expected the root element");
    }
    const std::size_t last = text_.find_last_not_of(" \t\r\n");
    if (last != std::string_view::npos && text_[last] != '>') {
      throw XmlError(line_at(last), "content after the root element </" + std::string(root.name()) + ">");
    }
    return root;
  }

  static bool blank(const char* s) {
    for (; *s; ++s) {
      if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return false;
    }
    return true;
  }

  // Depth and element count over whatever was read, without recursion (an 8 MB file could
  // nest millions deep).
  void check_limits() const {
    std::size_t elements = 0;
    int depth = 0;
    pugi::xml_node n = doc_.first_child();
    while (n) {
      if (n.type() == pugi::node_element) {
        if (depth + 1 > limits_.max_depth) {
          throw XmlError(line_of(n), "elements nested deeper than " + std::to_string(limits_.max_depth));
        }
        if (++elements > limits_.max_elements) {
          throw XmlError(line_of(n), "more than " + std::to_string(limits_.max_elements) + " elements");
        }
      }
      if (n.first_child()) {
        if (n.type() == pugi::node_element) ++depth;
        n = n.first_child();
        continue;
      }
      while (n && !n.next_sibling()) {
        n = n.parent();
        if (n && n.type() == pugi::node_element) --depth;
      }
      if (n) n = n.next_sibling();
    }
  }

  [[noreturn]] void fail_parse(const pugi::xml_parse_result& parsed) const {
    const auto offset = static_cast<std::size_t>(std::max<std::ptrdiff_t>(parsed.offset, 0));
    switch (parsed.status) {
      case pugi::status_no_document_element:
        throw XmlError(1, "expected the root element");
      case pugi::status_end_element_mismatch:
        fail_end_tag(offset);
      case pugi::status_bad_attribute:
        throw XmlError(line_at(offset), attribute_problem(offset));
      case pugi::status_bad_comment:
        throw XmlError(line_at(offset), "unterminated comment");
      case pugi::status_unrecognized_tag:
        if (offset >= 2 && text_.substr(offset - 2, 2) == "<!") {
          throw XmlError(line_at(offset), "markup declaration refused ('<!' not followed by a comment)");
        }
        break;
      default:
        break;
    }
    std::string reason = parsed.description();
    reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    throw XmlError(line_at(offset), reason);
  }

  // An end tag that closes another element, or the end of the text with elements still open:
  // named with the element open there and its line.
  [[noreturn]] void fail_end_tag(std::size_t offset) const {
    // Inside an end tag's name, or at the end of the text (the elements still open).
    std::size_t tag = offset < text_.size() ? text_.rfind("</", offset) : std::string_view::npos;
    if (tag != std::string_view::npos && text_.find('>', tag) < offset) tag = std::string_view::npos;
    const pugi::xml_node open = open_element(tag == std::string_view::npos ? text_.size() : tag);
    if (tag == std::string_view::npos) {
      if (!open) throw XmlError(line_at(offset), "the document ends before every element is closed");
      throw XmlError(line_of(open), "<" + std::string(open.name()) + "> is never closed");
    }
    const std::size_t end = text_.find_first_of("> \t\r\n", tag + 2);
    const std::string closing(text_.substr(tag + 2, (end == std::string_view::npos ? text_.size() : end) - tag - 2));
    if (!open) throw XmlError(line_at(offset), "</" + closing + "> closes no open element");
    throw XmlError(line_at(offset), "</" + closing + "> closes <" + open.name() + "> opened on line " +
                                        std::to_string(line_of(open)));
  }

  // The innermost element still open at `before`. pugixml keeps what it read but not which
  // elements were still open: those are the first ones along the chain of last children, as
  // many as the elements started less those closed (self-closing, or by an end tag before).
  pugi::xml_node open_element(std::size_t before) const {
    std::size_t started = 0, closed = count_end_tags(before);
    for (pugi::xml_node n = doc_.first_child(); n;) {
      if (n.type() == pugi::node_element) {
        ++started;
        if (self_closing(n)) ++closed;
      }
      if (n.first_child()) {
        n = n.first_child();
        continue;
      }
      while (n && !n.next_sibling()) n = n.parent();
      if (n) n = n.next_sibling();
    }
    if (closed >= started) return {};
    std::size_t open = started - closed;
    pugi::xml_node chain = doc_.last_child();
    while (chain && chain.type() != pugi::node_element) chain = chain.previous_sibling();
    while (chain && --open > 0) {
      pugi::xml_node child = chain.last_child();
      while (child && child.type() != pugi::node_element) child = child.previous_sibling();
      if (!child) break;
      chain = child;
    }
    return chain;
  }

  // End tags ("</") in the text before `before`, less those inside comments and PIs.
  std::size_t count_end_tags(std::size_t before) const {
    std::size_t count = 0;
    for (std::size_t at = text_.find("</"); at < before; at = text_.find("</", at + 2)) ++count;
    for (pugi::xml_node n = doc_.first_child(); n;) {
      if ((n.type() == pugi::node_comment || n.type() == pugi::node_pi) && in_buffer(n.value())) {
        const std::string_view v(n.value());
        if (offset_of(n.value()) < before) {
          for (std::size_t at = v.find("</"); at != std::string_view::npos; at = v.find("</", at + 2)) {
            --count;
          }
        }
      }
      if (n.first_child()) {
        n = n.first_child();
        continue;
      }
      while (n && !n.next_sibling()) n = n.parent();
      if (n) n = n.next_sibling();
    }
    return count;
  }

  // Whether the start tag of `e` ends in "/>": the first '>' past its last attribute value
  // (the only place a '>' may stand inside a tag) or past its name.
  bool self_closing(const pugi::xml_node& e) const {
    std::size_t from = offset_of(e.name()) + std::string_view(e.name()).size();
    for (pugi::xml_attribute a = e.last_attribute(); a; a = a.previous_attribute()) {
      if (in_buffer(a.value())) {  // past its closing quote, in the text as written
        const std::size_t start = offset_of(a.value());
        from = std::min(text_.size(), text_.find(start > 0 ? text_[start - 1] : '"', start)) + 1;
        break;
      }
    }
    const std::size_t gt = text_.find('>', from);
    return gt != std::string_view::npos && gt > 0 && text_[gt - 1] == '/';
  }

  // The attribute pugixml stopped at: an unquoted value, or no space before the next one.
  std::string attribute_problem(std::size_t offset) const {
    pugi::xml_node last;  // the element being read: the last one started
    for (pugi::xml_node n = doc_.first_child(); n;) {
      if (n.type() == pugi::node_element) last = n;
      if (n.first_child()) {
        n = n.first_child();
        continue;
      }
      while (n && !n.next_sibling()) n = n.parent();
      if (n) n = n.next_sibling();
    }
    const std::string element = last ? std::string(last.name()) : std::string("?");
    std::size_t before = offset;
    while (before > 0 && (text_[before - 1] == ' ' || text_[before - 1] == '\t')) --before;
    if (before > 0 && text_[before - 1] == '=' && offset < text_.size() && text_[offset] != '"' &&
        text_[offset] != '\'') {
      return "attribute value must be quoted";
    }
    if (offset > 0 && offset < text_.size() && (text_[offset - 1] == '"' || text_[offset - 1] == '\'')) {
      return "expected a space between attributes of <" + element + ">";
    }
    return "malformed attribute in <" + element + ">";
  }

  XmlElement convert(const pugi::xml_node& node) const {
    XmlElement e;
    e.name = node.name();
    e.line = line_of(node);
    for (const pugi::xml_attribute& a : node.attributes()) {
      if (e.attribute(a.name()) != nullptr) {
        throw XmlError(e.line, "attribute '" + std::string(a.name()) + "' repeated in <" + e.name + ">");
      }
      check_references(a.value(), '\'');
      e.attributes.emplace_back(a.name(), a.value());
    }
    for (const pugi::xml_node& child : node.children()) {
      switch (child.type()) {
        case pugi::node_element:
          e.children.push_back(convert(child));
          break;
        case pugi::node_pcdata:  // text is ignored, but its references are checked
          check_references(child.value(), '<');
          break;
        case pugi::node_cdata:
          throw XmlError(line_of(child), "CDATA section refused: a topology file holds no text");
        case pugi::node_doctype:
          throw XmlError(line_of(child), "DOCTYPE refused");
        default:
          break;
      }
    }
    return e;
  }

  // &lt; &gt; &amp; &quot; &apos; and &#N; / &#xH; only: no other entity exists here.
  // `value` starts where it was written (in-place parsing keeps its start); the text as
  // written runs to its closing quote (an attribute) or to the next '<' (text).
  void check_references(const char* value, char until) const {
    if (!in_buffer(value)) return;  // pugixml's own empty string
    const std::size_t start = offset_of(value);
    const char quote = start > 0 ? text_[start - 1] : '"';
    const std::size_t end = std::min(text_.size(), text_.find(until == '<' ? '<' : quote, start));
    const std::string_view raw = text_.substr(start, end - start);
    const int line = line_at(start);
    for (std::size_t i = raw.find('&'); i != std::string_view::npos; i = raw.find('&', i + 1)) {
      const std::size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos || semi - i > 12) {
        throw XmlError(line, "'&' that starts no reference (write &amp;)");
      }
      const std::string_view ref = raw.substr(i + 1, semi - i - 1);
      if (ref == "lt" || ref == "gt" || ref == "amp" || ref == "quot" || ref == "apos") continue;
      if (ref.size() < 2 || ref[0] != '#') {
        throw XmlError(line, "unknown entity '&" + std::string(ref) + ";' (entities are not expanded)");
      }
      check_code_point(ref, line);
    }
  }

  static void check_code_point(std::string_view ref, int line) {
    const bool hex = ref[1] == 'x';
    const std::string_view digits = ref.substr(hex ? 2 : 1);
    if (digits.empty()) throw XmlError(line, "empty character reference");
    std::uint32_t cp = 0;
    for (const char c : digits) {
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      else if (hex && c >= 'a' && c <= 'f') v = c - 'a' + 10;
      else if (hex && c >= 'A' && c <= 'F') v = c - 'A' + 10;
      if (v < 0) throw XmlError(line, "bad character reference '&" + std::string(ref) + ";'");
      cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(v);
      if (cp > 0x10FFFF) throw XmlError(line, "character reference out of range");
    }
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
      throw XmlError(line, "character reference to an invalid character");
    }
  }

  std::string_view text_;
  std::string buffer_;  // pugixml parses it in place: its strings point into it
  const XmlLimits& limits_;
  pugi::xml_document doc_;
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
  return Document(text, limits).read();
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
