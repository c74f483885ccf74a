// A small, safe XML reader and writer for NCCL topology files. It reads elements, attributes,
// comments and the XML declaration, and nothing that can reach outside the text: a DOCTYPE
// (where entities and external references live) is refused, and only the five predefined
// entities and numeric character references are expanded. Every element keeps its line, so
// that each finding can name the line of the file.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace commsweep::topology {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in file order
  std::vector<XmlElement> children;
  int line = 0;  // where the start tag begins, from 1

  // The attribute's value, or nullptr when absent.
  const std::string* attribute(std::string_view key) const;
};

// A malformed or refused document: the line (from 1) and the reason.
class XmlError : public std::runtime_error {
 public:
  XmlError(int line, const std::string& reason);
  int line() const { return line_; }
  const std::string& reason() const { return reason_; }

 private:
  int line_;
  std::string reason_;
};

// Limits that keep a hostile file from costing more than a real one could need.
struct XmlLimits {
  std::size_t max_bytes = 8u << 20;  // real topology files are a few kB
  int max_depth = 64;                // NCCL's own trees are < 16 deep
  std::size_t max_elements = 100000;
};

// The document's root element; throws XmlError.
XmlElement parse_xml(std::string_view text, const XmlLimits& limits = {});

// Attribute text with &, <, >, " escaped.
std::string escape_xml_attribute(std::string_view text);

}  // namespace commsweep::topology
