// The matrices a baseline judges beside the collectives and EP rows: the GPU pairs of `commsweep
// nvlink --json` (commsweep.nvlink/1, results/schema/nvlink.md) and the node pairs of `commsweep
// pairs --json` (commsweep.pairs/2, results/schema/pairs.md), read from their documents (this
// layer sits below nvlink/ and pairs/: it reads the documented fields, not their records).
// The keys: observation.hpp, Key.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "regress/observation.hpp"

namespace commsweep::regress {

inline constexpr const char* kNvlinkSchema = "commsweep.nvlink/1";  // nvlink/nvlink_json.hpp's
inline constexpr const char* kPairsSchema = "commsweep.pairs/2";    // pairs/pairs_json.hpp's

// Every pair of every node: per copy test its GB/s, its latency, and per GPU all-to-one and
// one-to-all; a figure not measured (null) is not observed. The pair's wrong words (over its
// tests) are counted at its ce_write, a target's at its all_to_one. Throws std::runtime_error
// naming the field of a malformed document.
void observe_nvlink(const nlohmann::json& doc, std::map<Key, Observation>& out);
// Every node pair of a full document (each way, its slowest rail; its rails' wrong elements),
// the nodes' summaries of a sparse one. Throws as observe_nvlink.
void observe_pairs(const nlohmann::json& doc, std::map<Key, Observation>& out);

// What the matrices of RUN measured, for the setup check (measured_setup.hpp), each sorted and
// without repeats: the nodes whose pairs are its keys (nvlink: hosts; pairs: node names), and
// per document "<test>:<bytes>" ("nvlink:256M", "pairs:1M"). Empty without matrices.
std::vector<std::string> matrix_nodes(const report::Results& run);
std::vector<std::string> matrix_bytes(const report::Results& run);

}  // namespace commsweep::regress
