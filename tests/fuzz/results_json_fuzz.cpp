// The results JSON reader (report/json.cpp: results_from_json, what `compare` and the
// baselines read): any document is read or rejected with std::runtime_error; a document read
// writes back (to_json) to one that reads again. Input: the JSON text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "report/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  commsweep::report::Results results;
  try {
    results = commsweep::report::results_from_json(doc);
  } catch (const std::runtime_error&) {
    return 0;
  }
  // What was read must survive a round trip through the writer.
  const auto again = commsweep::report::results_from_json(commsweep::report::to_json(results));
  if (again.rows.size() != results.rows.size() || again.ep_rows.size() != results.ep_rows.size()) {
    std::abort();
  }
  return 0;
}
