// Reading a whole file: one helper for every reader of topology, shape, annotations and
// results files.
#pragma once

#include <optional>
#include <string>

namespace commsweep {

// The file's bytes, or nullopt when it cannot be opened or read.
std::optional<std::string> read_text_file(const std::string& path);

}  // namespace commsweep
