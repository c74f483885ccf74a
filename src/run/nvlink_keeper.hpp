// What rank 0 of `commsweep nvlink --json` keeps for a job that ends early
// (run/document_keeper.hpp): the nodes' results once gathered, else nothing (every node measures
// at once and reports at the end: a job ended before that leaves no file, and says so).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "nvlink/record.hpp"
#include "run/document_keeper.hpp"

namespace commsweep {

struct NvlinkDocument {
  using Record = nvlink::NvlinkRun;
  static constexpr const char* kUnit = "node";
  static std::size_t measured(const Record& r) { return r.nodes.size(); }
  static nlohmann::json document(const Record& r);
  static void update(Record& kept, const Record& now) { kept = now; }
};
using NvlinkKeeper = DocumentKeeper<NvlinkDocument>;

}  // namespace commsweep
