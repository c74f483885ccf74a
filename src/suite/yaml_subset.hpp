// Suite files in YAML, read by yaml-cpp (its event parser) into nlohmann::json with the line of
// every value. A suite uses a subset of YAML, and the rest is refused, naming the line:
// anchors (&), aliases (*), tags (!), flow mappings ({ }), block scalars (| >), complex keys
// (?), directives (%), a second document or "...", tabs in the indentation, duplicate keys, a
// plain scalar continued on the next line, an empty flow item, nesting deeper than kMaxDepth.
// Without aliases no input can expand ("billion laughs"). Plain scalars are typed as YAML 1.2's
// core schema does (null, booleans, decimal integers within 64 bits, decimals); anything else,
// and every quoted scalar, is a string.
#pragma once

#include <string>

#include "suite/document.hpp"

namespace commsweep::suite {

// Throws SyntaxError.
Document parse_yaml_subset(const std::string& text);

}  // namespace commsweep::suite
