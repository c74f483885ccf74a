#include "run/progress.hpp"

#include <cstdio>

#include "core/sizes.hpp"

namespace commsweep {
namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

}  // namespace

std::string progress_text(std::size_t done, std::size_t total, const std::string& test,
                          std::uint64_t size_bytes, double elapsed_s) {
  std::string text = "[" + std::to_string(done) + (total ? "/" + std::to_string(total) : "") + "] " + test +
                     " " + compact_size(size_bytes) + "  elapsed " + clock_text(elapsed_s);
  // The ETA assumes the remaining rows take as long as the measured ones on average; sizes
  // grow along a sweep, so it is a lower bound early on.
  if (total > done && done > 0) text += "  ETA " + clock_text(elapsed_s / done * (total - done));
  return text;
}

ProgressLine::ProgressLine(bool enabled, std::size_t total)
    : enabled_(enabled), total_(total), start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);  // carriage return, erase to the end of the line
  std::fflush(stderr);
  shown_ = false;
}

void ProgressLine::step(const std::string& test, std::uint64_t size_bytes) {
  ++done_;
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fputs(("\r\033[K" + progress_text(done_, total_, test, size_bytes, elapsed)).c_str(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace commsweep
