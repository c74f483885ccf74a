// libFuzzer target: the health counter and AER parsers (health/counter.hpp, pcie_reader.hpp)
// and the snapshot JSON reader rank 0 uses on what each node sent. Any bytes must parse without
// a crash; a counter is either a value within its width or a problem, never both; a saturated
// counter sits at its ceiling.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "health/counter.hpp"
#include "health/health_json.hpp"
#include "health/pcie_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commsweep::health;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (int width : {4, 8, 16, 32, 64}) {
    const Counter c = parse_counter("x", text, width);
    if (c.value.has_value() == !c.problem.empty()) std::abort();
    if (c.value && *c.value > ceiling(width)) std::abort();
    if (c.saturated && (!c.value || *c.value != ceiling(width))) std::abort();
  }
  std::map<std::string, std::uint64_t> counts;
  std::uint64_t total = 0;
  std::string problem;
  if (!parse_aer(text, &counts, &total, &problem) && problem.empty()) std::abort();
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded()) {
    try {
      (void)to_json(snapshot_from_json(doc));
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
