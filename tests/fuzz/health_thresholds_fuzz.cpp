// libFuzzer target: a --health-thresholds file's bytes through the reader (health/thresholds.hpp:
// the suite reader's YAML subset or JSON, then the rule table's checks), as YAML and as JSON.
// Bad input must end as a usage error (commsweep::Error) naming the file, never as a crash, a
// hang or another exception; what is accepted is a table of the same rules, each limit 0 or
// more and finite, and a limit only where the severity is warn.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "health/thresholds.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace commsweep::health;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* path : {"fuzz.yaml", "fuzz.json"}) {
    try {
      const RuleBook book = parse_thresholds(path, text);
      if (book.rows().size() != default_rules().size()) __builtin_trap();
      for (const Rule& r : book.rows()) {
        if (!(r.limit >= 0) || !std::isfinite(r.limit)) __builtin_trap();
        if (r.limit > 0 && r.severity != Severity::Warn) __builtin_trap();
      }
    } catch (const commsweep::Error& e) {
      if (e.kind() != commsweep::ErrorKind::Usage) __builtin_trap();
      if (std::string(e.what()).find(path) == std::string::npos) __builtin_trap();
    }
  }
  return 0;
}
