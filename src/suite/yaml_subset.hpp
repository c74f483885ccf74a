// A strict subset of YAML for suite files, read into nlohmann::json (the project takes no
// YAML library). It takes:
//   block mappings (key: value) and block sequences (- item), nested by indentation (spaces);
//   "- key: value" items; a sequence under a key at the key's own indentation;
//   plain scalars: null ~ (or nothing) -> null, true false -> booleans, decimal integers and
//   decimals -> numbers, anything else a string; 'single' ('' for ') and "double" quoted
//   strings (\" \\ \/ \n \t \r \b \f \uXXXX); one-line flow sequences [a, "b", [c]];
//   # comments; one "---" before the document.
// It refuses, naming the line: anchors (&), aliases (*), tags (!), flow mappings ({ }),
// block scalars (| >), complex keys (?), directives (%), a second document or "...", tabs in
// the indentation, duplicate keys, a plain scalar continued on the next line, nesting deeper
// than kMaxDepth. Without aliases no input can expand ("billion laughs").
#pragma once

#include <string>

#include "suite/document.hpp"

namespace commsweep::suite {

// Throws SyntaxError.
Document parse_yaml_subset(const std::string& text);

}  // namespace commsweep::suite
