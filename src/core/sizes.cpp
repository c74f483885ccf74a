#include "core/sizes.hpp"

#include <cctype>
#include <limits>

#include "core/error.hpp"

namespace commsweep {

std::uint64_t parse_size(const std::string& text, const std::string& flag) {
  const std::string hint = flag + ": '" + text +
                           "' is not a size; give bytes with an optional K, M, G or T suffix "
                           "(powers of 1024), e.g. 8, 64K, 1M, 8G";
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw_usage(hint);
  std::size_t pos = 0;
  std::uint64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      throw_usage(flag + ": '" + text + "' is too large");
    }
    value = value * 10 + digit;
    ++pos;
  }
  std::string suffix;
  for (; pos < text.size(); ++pos) suffix.push_back(static_cast<char>(std::toupper(text[pos])));
  int shift = 0;
  if (!suffix.empty()) {
    switch (suffix[0]) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': shift = 0; break;
      default: throw_usage(hint);
    }
    const std::string rest = suffix[0] == 'B' ? suffix.substr(1) : suffix.substr(1);
    if (!(rest.empty() || rest == "B" || rest == "IB") || (suffix[0] == 'B' && !rest.empty())) {
      throw_usage(hint);
    }
  }
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
    throw_usage(flag + ": '" + text + "' is too large");
  }
  return value << shift;
}

std::vector<std::uint64_t> size_list(const SweepConfig& c) {
  std::vector<std::uint64_t> sizes;
  constexpr std::uint64_t kLargest = std::numeric_limits<std::uint64_t>::max();
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

}  // namespace commsweep
