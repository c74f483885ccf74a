// The results of `commsweep nvlink --json` (schema commsweep.nvlink/1,
// results/schema/commsweep.nvlink.v1.schema.json, results/schema/nvlink.md): per node its GPUs
// (NVLinks, counters before and after), every ordered pair's tests and verdict, the matrices
// (src rows, dst columns) and the all-to-one / one-to-all targets; the run's summary.
#pragma once

#include <nlohmann/json.hpp>

#include "nvlink/judge.hpp"
#include "nvlink/record.hpp"

namespace commsweep::nvlink {

inline constexpr const char* kSchema = "commsweep.nvlink/1";

nlohmann::json to_json(const NvlinkRun& run, const Analysis& analysis);
// The run a document holds (its verdicts are judged again from it); throws
// std::runtime_error naming the field where the document is not commsweep.nvlink/1.
NvlinkRun run_from_json(const nlohmann::json& doc);

// One rank's part of its node's results on the way to rank 0: its GPU and, from the node's first
// rank, the node's pairs and targets (every rank of a node knows them; one sends them).
struct RankPart {
  Gpu gpu;
  std::vector<PairResult> pairs;
  std::vector<TargetResult> targets;
};
nlohmann::json part_to_json(const RankPart& part);
RankPart part_from_json(const nlohmann::json& j);

}  // namespace commsweep::nvlink
