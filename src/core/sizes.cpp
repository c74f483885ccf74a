#include "core/sizes.hpp"

#include <cctype>
#include <cstdio>
#include <limits>

#include "core/error.hpp"

namespace commsweep {
namespace {

constexpr std::uint64_t kLargest = std::numeric_limits<std::uint64_t>::max();

// The power of 1024 of a unit letter (K M G T, either case), or -1.
int unit_power(char letter) {
  switch (std::toupper(static_cast<unsigned char>(letter))) {
    case 'K': return 1;
    case 'M': return 2;
    case 'G': return 3;
    case 'T': return 4;
    default: return -1;
  }
}

// OUT = VALUE * BASE^POWER; false past 2^64-1.
bool scaled(std::uint64_t value, std::uint64_t base, int power, std::uint64_t& out) {
  out = value;
  for (int i = 0; i < power; ++i) {
    if (out > kLargest / base) return false;
    out *= base;
  }
  return true;
}

// "1GB", "100kb": a decimal unit in this field's tables (GB/s is 10^9 bytes per second), so
// taking it as 2^30 would silently run another size; the refusal offers both readings.
[[noreturn]] void refuse_decimal_unit(const std::string& text, const std::string& flag, std::uint64_t value,
                                      char letter, int power) {
  const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
  const std::string binary = std::to_string(value) + upper;
  std::string message = flag + ": '" + text + "': " + upper + "B is 10^" + std::to_string(3 * power) +
                        " bytes (as in GB/s), while sizes here are powers of 1024: did you mean '" + binary + "'";
  std::uint64_t bytes = 0;
  if (scaled(value, 1024, power, bytes)) message += " (" + std::to_string(bytes) + " bytes)";
  if (scaled(value, 1000, power, bytes)) message += ", or " + std::to_string(bytes) + " for 10^" +
                                                    std::to_string(3 * power) + " bytes";
  throw_usage(message + "?");
}

}  // namespace

std::uint64_t parse_size(const std::string& text, const std::string& flag) {
  const std::string hint = flag + ": '" + text +
                           "' is not a size; give bytes with an optional K, M, G or T suffix "
                           "(powers of 1024; Ki, Mi, Gi, Ti and KiB... alike), e.g. 8, 64K, 1M, 8G";
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw_usage(hint);
  std::size_t pos = 0;
  std::uint64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (value > (kLargest - digit) / 10) throw_usage(flag + ": '" + text + "' is too large");
    value = value * 10 + digit;
    ++pos;
  }
  const std::string suffix = text.substr(pos);
  if (suffix.empty() || suffix == "B") return value;
  const int power = unit_power(suffix[0]);
  if (power < 0) throw_usage(hint);
  const std::string rest = suffix.substr(1);
  if (rest == "B" || rest == "b") refuse_decimal_unit(text, flag, value, suffix[0], power);
  // K, Ki and KiB (IEC 80000-13's binary prefix) all mean 1024.
  if (!(rest.empty() || rest == "i" || rest == "iB")) throw_usage(hint);
  std::uint64_t bytes = 0;
  if (!scaled(value, 1024, power, bytes)) throw_usage(flag + ": '" + text + "' is too large");
  return bytes;
}

std::vector<std::uint64_t> size_list(const SweepConfig& c) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = c.min_bytes; size <= c.max_bytes;) {
    sizes.push_back(size);
    // Checked before the step: a wrapped product can land above size (and below max).
    const bool overflows = c.step_factor > 1 ? size > kLargest / c.step_factor
                                             : size > kLargest - c.step_bytes;
    if (overflows) break;
    const std::uint64_t next = c.step_factor > 1 ? size * c.step_factor : size + c.step_bytes;
    if (next <= size) break;  // a zero start with a factor, or a zero step
    size = next;
  }
  return sizes;
}

std::uint64_t size_count(const SweepConfig& c) {
  if (c.min_bytes > c.max_bytes) return 0;
  if (c.step_factor > 1) return size_list(c).size();  // geometric: at most 64 sizes
  if (c.step_bytes == 0) return 1;
  return (c.max_bytes - c.min_bytes) / c.step_bytes + 1;
}

std::string compact_size(std::uint64_t bytes) {
  static const char* const kSuffix[] = {"", "K", "M", "G", "T"};
  int i = 0;
  while (i < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return std::to_string(bytes) + kSuffix[i];
}

std::string binary_size_text(std::uint64_t bytes) {
  static const char* const kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int i = 0;
  double value = static_cast<double>(bytes);
  while (i < 6 && value >= 1024) {
    value /= 1024;
    ++i;
  }
  char text[32];
  // Whole where whole (8 TiB), else one decimal, cut rather than rounded up (23.9 GiB, never a
  // 24 GiB the host does not have).
  const double tenths = static_cast<double>(static_cast<std::uint64_t>(value * 10)) / 10;
  if (i == 0 || tenths == static_cast<double>(static_cast<std::uint64_t>(tenths))) {
    std::snprintf(text, sizeof text, "%.0f %s", tenths, kUnit[i]);
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", tenths, kUnit[i]);
  }
  return text;
}

}  // namespace commsweep
