// A `commsweep pairs --json` document (commsweep.pairs/2), or a suite's pairs sweep, as figures
// (report/figure.hpp): the pairs workload's `figures` (run/workloads/pairs.cpp), through which
// csv, baseline and compare read it. Read from the document's documented fields.
#pragma once

#include <nlohmann/json.hpp>

#include "report/figure.hpp"

namespace commsweep::pairs {

// Every node pair of a full document (case node_a, node_b, the names in order): its bandwidth
// (each way, its slowest rail) and its slowest rail's time, with its rails' wrong elements; the
// nodes' summaries of a sparse one (above 64 nodes: its slow pairs only), per node (case node)
// the median and the slowest of its pairs. Judged as baselines always have: test "pairs", type
// the run's type, config "<node> <-> <node>" (or the node), size the bytes each way, place
// "sendrecv" (node_median, node_min). Throws std::runtime_error naming the field of a malformed
// document. Linear in the pairs (a document of 1,000 nodes holds 500,000).
report::Sheet sheet_from_json(const nlohmann::json& doc);

}  // namespace commsweep::pairs
