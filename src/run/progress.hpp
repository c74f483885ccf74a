// A progress line for long sweeps, on rank 0 and only when stderr is a terminal:
// "[ 12/140] all_reduce 64M  elapsed 0:42  ETA 5:18", rewritten in place after every row and
// erased before anything else is printed. Quiet otherwise (a CI log, a file, other ranks).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace commsweep {

// The line's text; total 0 (an endless -N 0 sweep) shows no ETA.
std::string progress_text(std::size_t done, std::size_t total, const std::string& test,
                          std::uint64_t size_bytes, double elapsed_s);

class ProgressLine {
 public:
  ProgressLine(bool enabled, std::size_t total);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Erases the line, so that a table row or a note prints on a clean line.
  void clear();
  // One more row measured.
  void step(const std::string& test, std::uint64_t size_bytes);

 private:
  bool enabled_;
  bool shown_ = false;
  std::size_t total_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace commsweep
