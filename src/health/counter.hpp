// One hardware counter as the kernel writes it: a decimal number and a newline ("%llu\n"),
// with the width the hardware counts in. IB PortCounters saturate (stop at their largest value)
// instead of wrapping, so a counter at its ceiling has lost count: it is reported as saturated,
// never as a delta.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace commsweep::health {

struct Counter {
  std::string name;
  std::optional<std::uint64_t> value;  // nullopt: could not be read, see problem
  int width_bits = 64;                 // 4, 8, 16, 32 or 64
  bool saturated = false;              // value == 2^width - 1
  std::string problem;                 // why value is absent: "non-numeric \"abc\"", ...
};

// TEXT (already without its trailing newline) as a counter of WIDTH bits. Never throws: an
// empty, non-numeric, negative or out-of-range text gives a Counter with problem set.
Counter parse_counter(const std::string& name, const std::string& text, int width_bits);

// The largest value of a WIDTH-bit counter.
std::uint64_t ceiling(int width_bits);

}  // namespace commsweep::health
