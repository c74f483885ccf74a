// A suite file as data: a JSON value and the line where each of its values began, read from
// JSON or from the YAML subset (yaml_subset.hpp). Nothing here knows about sweeps.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace commsweep::suite {

// Deeper nesting is refused: a suite needs three levels, and the printers recurse.
inline constexpr int kMaxDepth = 32;
// A suite is a few kilobytes; anything near this is not one.
inline constexpr std::size_t kMaxDocumentBytes = 1 << 20;

// A refused or malformed input: `line` (1-based; 0 when not known) and the reason.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(int line, const std::string& reason) : std::runtime_error(reason), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

// A document and where its values began: JSON pointer ("/0/tests") -> line.
struct Document {
  nlohmann::json value;
  std::map<std::string, int> lines;

  // The line of `pointer`, else of its nearest ancestor that has one; 0 when none.
  int line_of(const std::string& pointer) const;
};

// `parent` + "/" + key, with JSON pointer's escapes (~0 for ~, ~1 for /).
std::string pointer_child(const std::string& parent, const std::string& key);

// Refuses what neither reader takes: more than kMaxDocumentBytes, bytes that are not UTF-8,
// control characters other than tab, CR and LF (naming the line).
void check_text(const std::string& text);

// JSON (RFC 8259), with duplicate keys and nesting deeper than kMaxDepth refused. Values get
// no lines (nlohmann keeps none); syntax errors do.
Document parse_json_document(const std::string& text);

// Where a suite file's list of sweeps is (JSON pointer): "" when the document is the list,
// "/sweeps" when it is a mapping of `sweeps` (and an optional `description`). Throws SyntaxError
// for an unknown top-level key (with a did-you-mean), a mapping of one sweep's keys (the format
// `commsweep ep --suite` read before the two were one: how to convert), or no non-empty list.
std::string sweeps_pointer(const Document& doc);

// JSON when `path` ends in .json or the text begins with '{' or '[', else the YAML subset.
// Throws SyntaxError.
Document parse_document(const std::string& path, const std::string& text);

}  // namespace commsweep::suite
