// The one contract for every file commsweep writes (results, CSV, HTML, Prometheus, markdown,
// baselines, pairs, preflight, topology):
//   a regular file or a new path   written atomically: a temporary file in the same folder,
//                                  fsync, rename onto the path (a reader sees the old file or
//                                  the whole new one, never half of it)
//   a symbolic link                followed; its target is written by the rule above
//   a character device, a FIFO,    written straight through (/dev/null, /dev/stdout, a pipe
//   a socket, /proc/self/fd/N      a reader waits on): never replaced by a regular file
//   a directory, anything else     refused, before anything is measured (cannot_write_reason)
// Nothing is ever renamed over a path that is not a regular file.
#pragma once

#include <string>

namespace commsweep::output {

// How a path will be written; `target` is where the bytes go (a symbolic link's target).
struct Plan {
  enum class How { Atomic, Stream, Append, Refused };
  How how = How::Refused;
  std::string target;
  std::string why;  // Refused: "is a directory", "is a block device", the errno text
};

// Looks at what PATH is now (follows symbolic links; a dangling one names the file to create).
Plan plan_for(const std::string& path);

// Empty when PATH can be written under the contract; otherwise why not ("is a directory",
// "Permission denied", "No such file or directory"). Writes nothing, opens no FIFO (a reader
// would see an end of file), leaves no temporary file.
std::string cannot_write_reason(const std::string& path);

// TEXT to PATH under the contract. Throws an Error of kind Output (exit code 11, a
// std::runtime_error) "cannot write PATH: why" (a full device, a FIFO nobody reads, a
// directory), leaving what was at PATH as it was.
void write_output_file(const std::string& path, const std::string& text);

// Where a write that failed keeps what it had, so that nothing is lost: TEXT in a new file of
// the temporary folder ($TMPDIR, else /tmp) named STEM-XXXXXX.json. Returns its path; throws
// std::runtime_error "cannot write PATH: why" when that fails too.
std::string keep_aside(const std::string& text, const std::string& stem);

// The atomic step alone, for a regular file or a new path (the history's own temporary file).
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace commsweep::output
