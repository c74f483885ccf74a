// Reading a whole file: one helper for every reader of topology, shape, annotations, suite,
// results, baseline, routing and NCCL log files.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace commsweep {

// The largest file read_text_file takes. Every file commsweep reads is kilobytes to a few
// megabytes; without a bound, /dev/zero or a runaway log given by mistake would grow a string
// until the process is killed, without a word.
constexpr std::size_t kMaxTextFileBytes = std::size_t{64} << 20;

// The file's bytes, or throws std::runtime_error naming the path and why: "PATH: is a
// directory", "PATH: cannot read: <errno text>", "PATH: larger than N MiB". Reads at most
// max_bytes + 1 bytes, so a device or a pipe without end costs no more. A FIFO or a pipe
// (a shell's <(...)) is read to its end; opening one never waits for a writer.
std::string read_bounded_file(const std::string& path, std::size_t max_bytes = kMaxTextFileBytes);

// The same, with nullopt for every failure.
std::optional<std::string> read_text_file(const std::string& path,
                                          std::size_t max_bytes = kMaxTextFileBytes);

}  // namespace commsweep
