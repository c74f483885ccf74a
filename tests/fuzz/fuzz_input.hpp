// What the fuzz targets share: the fuzzer's bytes as a command line, or as a file that the
// parser under test opens by name; the rule that bad input may end only in a usage error.
// Not a target itself (no _fuzz.cpp suffix).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace commsweep::fuzz {

// Runs parse(): a usage commsweep::Error (exit code 2) is what bad input may end in; any
// other error escapes, and libFuzzer reports it as a crash.
template <class Parse>
void usage_errors_only(Parse&& parse) {
  try {
    parse();
  } catch (const commsweep::Error& e) {
    if (e.kind() != commsweep::ErrorKind::Usage) throw;
  }
}

// Arguments separated by newlines (the corpus files stay readable), argv[0] = "commsweep".
class Argv {
 public:
  Argv(const std::uint8_t* data, std::size_t size, std::vector<std::string> leading = {}) {
    args_.emplace_back("commsweep");
    for (auto& a : leading) args_.push_back(std::move(a));
    std::string current;
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] == '\n') {
        args_.push_back(current);
        current.clear();
      } else {
        current.push_back(static_cast<char>(data[i]));
      }
    }
    if (!current.empty()) args_.push_back(current);
    for (auto& a : args_) pointers_.push_back(a.c_str());
    pointers_.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(args_.size()); }
  const char* const* argv() const { return pointers_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<const char*> pointers_;
};

// The bytes in an anonymous in-memory file, named /proc/self/fd/N for parsers that take a
// path: no disk, nothing to clean up after a crash.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("fuzz-input", 0)) {
    if (fd_ < 0) throw std::runtime_error("memfd_create failed");
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) throw std::runtime_error("write to memfd failed");
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace commsweep::fuzz
