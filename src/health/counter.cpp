#include "health/counter.hpp"

namespace commsweep::health {

std::uint64_t ceiling(int width_bits) {
  if (width_bits >= 64 || width_bits <= 0) return ~std::uint64_t{0};
  return (std::uint64_t{1} << width_bits) - 1;
}

namespace {
// A short, printable quote of what the file held.
std::string quote(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 24)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > 24) out += "...";
  return "\"" + out + "\"";
}
}  // namespace

Counter parse_counter(const std::string& name, const std::string& text, int width_bits) {
  Counter c;
  c.name = name;
  c.width_bits = width_bits;
  if (text.empty()) {
    c.problem = "empty (truncated?)";
    return c;
  }
  std::uint64_t v = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') {
      c.problem = "non-numeric " + quote(text);
      return c;
    }
    const std::uint64_t digit = static_cast<std::uint64_t>(ch - '0');
    if (v > (~std::uint64_t{0} - digit) / 10) {
      c.problem = "out of range " + quote(text) + " (over 64 bits)";
      return c;
    }
    v = v * 10 + digit;
  }
  if (v > ceiling(width_bits)) {
    c.problem = "out of range " + quote(text) + " (over " + std::to_string(width_bits) + " bits)";
    return c;
  }
  c.value = v;
  c.saturated = width_bits < 64 && v == ceiling(width_bits);
  return c;
}

}  // namespace commsweep::health
