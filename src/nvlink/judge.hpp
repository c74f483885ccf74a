// The verdicts of `commsweep nvlink`, per node, from the records alone (so that a results file
// is judged again offline, and the tests judge captured matrices):
//   - against the node's own median, per metric: a pair below slow_fraction (0.9) x the median
//     of that metric over the node's ordered pairs is slow. Healthy pairs of one NVSwitch node
//     use the same links and switches, and differ by a few percent; one degraded link, or a GPU
//     whose links trained down, drops the pairs through it by its share of the links or more.
//   - against the topology (nvlink/expectation.hpp), copy-engine tests only: a pair below
//     expected_floor (0.7) x the raw rate is slow, even where every pair of the node is (a whole
//     slow node leaves its median slow). Real copies stay below the raw rate by NVLink's packet
//     headers and flow control: about 80-87% of it on H100/H200 (360-390 of 450 GB/s one way;
//     NCCL issue 1264: 783 of 900 GB/s both ways on 8 x H100; docs/nvlink.md has the 4 x H200
//     capture's own ratio), so 0.7 is below any healthy pair and above a pair that lost a
//     quarter of its links. SM copies depend on the kernel: judged against the median only.
//   - latency: a pair above latency_over (2) x the node's median latency is slow.
//   - all-to-one and one-to-all per GPU, against the median over the node's GPUs and the floor.
//   - a GPU with fewer active NVLinks than another GPU of its node is named (its links trained
//     down, or one is down): a finding, like a slow pair.
// The rules against a reference (below a fraction of it, above a multiple) are the one judge's
// (judge/reference.hpp); here: which figures are held to which reference, and the wording.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "judge/outcomes.hpp"
#include "nvlink/record.hpp"
#include "regress/expected.hpp"

namespace commsweep::nvlink {

struct PairVerdict {
  std::array<std::optional<double>, kMetrics> ratio_to_median{};
  std::optional<double> ratio_to_expected;  // ce_write over the topology's rate
  bool slow = false;
  std::vector<std::string> why;  // "ce_write 95.31 GB/s = 0.26 x the node median 371.20"
  // The sourced figures of results/expected/ (regress/expected.hpp) this pair's tests are held
  // to, one per test with an entry (key "ce_write", "latency_us"); empty where none applies.
  std::vector<report::ExpectedValue> expected;
};

struct TargetVerdict {
  bool slow = false;
  std::vector<std::string> why;
};

struct NodeAnalysis {
  std::array<std::optional<double>, kMetrics> median_gbps{};
  std::optional<double> median_latency_us;
  std::optional<double> median_all_to_one_gbps, median_one_to_all_gbps;
  std::optional<double> expected_gbps;  // the most common pair's raw rate, one direction
  std::vector<PairVerdict> pairs;       // parallel to NodeMatrix::pairs
  std::vector<TargetVerdict> targets;   // parallel to NodeMatrix::targets
  std::vector<std::string> gpu_findings;
  // "FAIL expected: nvlink ce_write GPU 1 (...) -> GPU 2 (...) 99.05 GB/s is 0.25 of the expected
  // 396.17 GB/s (h100-nvlink-ce_write, FAIL below 0.80); on vm", one per pair's test below a floor.
  std::vector<std::string> expected_findings;
  // "GPU throttled: GPU 1 (...) on vm was held by power cap (87% of the window) during the GPU 0 ->
  // GPU 1 pair's tests: ...": the throttling of a slow pair's GPUs, or of a pair's below an
  // expected figure's floor, over its tests (report/gpu_findings.hpp). Evidence, not a verdict.
  std::vector<std::string> gpu_state_findings;
  int expected_fails = 0;
  std::uint64_t wrong = 0;
  int slow_pairs = 0;
  int slow_targets = 0;

  bool healthy() const {
    return slow_pairs == 0 && slow_targets == 0 && gpu_findings.empty() && expected_findings.empty() && wrong == 0;
  }
};

struct Analysis {
  std::vector<NodeAnalysis> nodes;  // parallel to NvlinkRun::nodes
  std::uint64_t wrong_total = 0;
  int slow_pairs = 0;
  int slow_targets = 0;
  int gpu_findings = 0;
  int expected_warns = 0, expected_fails = 0;  // pairs' tests below an expected figure's floors
  int pairs = 0;
};

// EXPECTED: the entries that apply to the run's hardware (regress::match), by which each pair's
// copy-engine and SM bandwidths and latency are judged too; none: not judged so.
Analysis analyse(const NvlinkRun& run, const regress::Expectations* expected = nullptr);
NodeAnalysis analyse_node(const NodeMatrix& node, const RunConfig& settings,
                          const regress::Expectations* expected = nullptr);

// "GPU 1 (rank 1, 0000:2a:00.0)": a GPU as the findings name it.
std::string gpu_label(const Gpu& g);

// The run's outcomes, for the one judge's exit code (judge/outcomes.hpp: 8 wrong bytes, 5 an
// incomplete run, 6 a health FAIL around it (run.health_fail), 10 slow: a slow pair, a slow GPU
// as all-to-one's target or one-to-all's source, a GPU with fewer NVLinks than its node's
// others, or a pair's test below its expected figure's FAIL floor).
judge::Outcomes outcomes_of(const NvlinkRun& run, const Analysis& analysis);

}  // namespace commsweep::nvlink
