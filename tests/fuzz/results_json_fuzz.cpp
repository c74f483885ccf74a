// The results JSON reader (report/json.cpp: read_results_file and results_from_json, what
// `compare` and the baselines read): any file is read or rejected with std::runtime_error
// naming it (nlohmann's own exceptions must not escape); a document read writes back
// (to_json) to one that reads again. Input: the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fuzz_input.hpp"
#include "report/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const commsweep::fuzz::MemoryFile file(data, size);
  commsweep::report::Results results;
  try {
    results = commsweep::report::read_results_file(file.path());
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
