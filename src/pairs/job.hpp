// `commsweep pairs` on this job: its nodes (World's, hosts or NCCL_HOSTID groups), rank 0's
// verdicts shared, and the run's exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "judge/outcomes.hpp"
#include "pairs/outliers.hpp"
#include "pairs/record.hpp"
#include "report/result.hpp"
#include "runtime/world.hpp"

namespace commsweep::pairs {

// The node of each rank, in rank order.
std::vector<int> node_of_every_rank(const World& world);

// A usage Error where the job has fewer than 2 nodes.
void require_nodes(const World& world);

// Rank 0's text from `read` (or its usage error) on every rank: a file only rank 0 may be able
// to read, and one verdict for every rank.
std::string from_rank0(World& world, double timeout_s, const std::function<std::string()>& read);

// The nodes as rank 0 prints them: name, ranks, and their GPUs from the provenance.
std::vector<Node> describe_nodes(const World& world, const report::Provenance& provenance);

// The run's outcomes, for the one judge's exit code (judge/outcomes.hpp): wrong elements, an
// incomplete run, a health FAIL around it (run.health_fail), a slow pair.
judge::Outcomes outcomes_of(const PairsRun& run, const Analysis& analysis);

}  // namespace commsweep::pairs
