// What rank 0 of `commsweep pairs --json` keeps for a job that ends early (run/document_keeper.hpp):
// the rounds measured so far, the matrix holding null for the pairs not measured. Nothing is
// written before the first round.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "pairs/record.hpp"
#include "run/document_keeper.hpp"

namespace commsweep {

struct PairsDocument {
  using Record = pairs::PairsRun;
  static constexpr const char* kUnit = "pair";
  static std::size_t measured(const Record& r) { return r.pairs.size(); }
  static nlohmann::json document(const Record& r);
  static void update(Record& kept, const Record& now);
};
using PairsKeeper = DocumentKeeper<PairsDocument>;

}  // namespace commsweep
