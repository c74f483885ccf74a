// Whether a run measured what its baseline did (regress/measured_setup.hpp): the setup read from
// a results file, the check against a baseline's sources (new ones record it all, older ones
// only backend and hosts), and the round trip through the baseline file.
#include <gtest/gtest.h>

#include "regress/baseline_json.hpp"
#include "regress/measured_setup.hpp"
#include "regress_fixtures.hpp"

namespace commsweep::regress {
namespace {

using testing::run_at;

// 2 ranks of the mpi backend on one host: host memory, as `mpirun -np 2 commsweep ... --backend mpi`.
report::Results mpi_run() {
  report::Results r = run_at(1);
  r.provenance.backend = "mpi";
  r.provenance.ranks = 2;
  r.provenance.hosts = {"vm", "vm"};
  r.provenance.gpus = {{0, "vm", -1, "host memory (mpi backend)", "-"}, {1, "vm", -1, "host memory (mpi backend)", "-"}};
  r.provenance.buffers = "cold";
  r.provenance.timer = "host";
  return r;
}

// 4 x H200 on one host, the shipped baseline's runs.
report::Results h200x4_run() {
  report::Results r = run_at(400);
  r.provenance.hosts.assign(4, "vm");
  for (auto& g : r.provenance.gpus) g.host = "vm", g.device = g.rank;
  return r;
}

TEST(RegressSetup, ReadFromTheResults) {
  const MeasuredSetup nccl = measured_setup(run_at(400));  // node-a and node-b, 2 GPUs each
  EXPECT_EQ(nccl.backend, "nccl");
  EXPECT_EQ(nccl.ranks, "4");
  EXPECT_EQ(nccl.nodes, "2");
  EXPECT_EQ(nccl.gpus_per_node, "2");
  EXPECT_EQ(nccl.shape, "h200x4");
  EXPECT_EQ(nccl.buffers, "warm");  // a file from before --buffers measured warm
  EXPECT_EQ(nccl.timer, "host");
  const MeasuredSetup mpi = measured_setup(mpi_run());
  EXPECT_EQ(mpi.gpus_per_node, "0");
  EXPECT_EQ(mpi.shape, "cpux2");
  EXPECT_EQ(mpi.buffers, "cold");

  report::Results uneven = run_at(400);
  uneven.provenance.hosts = {"a", "a", "a", "b"};
  for (auto& g : uneven.provenance.gpus) g.host = uneven.provenance.hosts[g.rank];
  EXPECT_EQ(measured_setup(uneven).gpus_per_node, "3+1");

  report::Results device = run_at(400);
  device.provenance.arguments = {"all_reduce", "--timer", "device"};  // a file from before provenance.timer
  EXPECT_EQ(measured_setup(device).timer, "device");
  device.provenance.backend = "mpi";  // the mpi backend has only the host clock
  EXPECT_EQ(measured_setup(device).timer, "host");

  report::Results ep = run_at(400);
  ep.rows.clear();
  EXPECT_EQ(measured_setup(ep).buffers, "");  // an EP run has none
  EXPECT_EQ(measured_setup(ep).timer, "");
}

// The case: 2 mpi ranks on host memory against 4 x H200: one line per property.
TEST(RegressSetup, AMismatchNamesEveryPropertyWithBothValues) {
  const SetupCheck c = check_setup({measured_setup(mpi_run())}, {measured_setup(h200x4_run())}, "", "nvlink");
  std::vector<std::string> lines;
  for (const auto& d : c.differences) lines.push_back(describe(d));
  EXPECT_EQ(lines, (std::vector<std::string>{"backend: run mpi, baseline nccl", "ranks: run 2, baseline 4",
                                             "GPUs per node: run 0, baseline 4", "shape: run cpux2, baseline h200x4",
                                             "buffers: run cold, baseline warm"}));
  EXPECT_EQ(c.not_checked, (std::vector<std::string>{"mode (the results do not record it: give --mode nvlink to check it)"}));
}

TEST(RegressSetup, TheSameSetupPassesAndTheModeIsCheckedWhenGiven) {
  const auto run = measured_setup(h200x4_run());
  EXPECT_TRUE(check_setup({run}, {run}, "nvlink", "nvlink").differences.empty());
  EXPECT_TRUE(check_setup({run}, {run}, "nvlink", "nvlink").not_checked.empty());
  const SetupCheck other = check_setup({run}, {run}, "roce-sriov", "nvlink");
  ASSERT_EQ(other.differences.size(), 1u);
  EXPECT_EQ(describe(other.differences[0]), "mode: run roce-sriov, baseline nvlink");
  EXPECT_EQ(check_setup({run}, {run}, "ib", "default").not_checked,
            (std::vector<std::string>{"mode (the baseline was made without --mode)"}));
  EXPECT_TRUE(check_setup({run}, {run}, "", "default").not_checked.empty());
}

// --allow-mixed baselines hold several settings: a run of any of them matches.
TEST(RegressSetup, ABaselineOfSeveralSettingsTakesAnyOfThem) {
  MeasuredSetup warm = measured_setup(h200x4_run()), cold = warm, ep = warm;
  cold.buffers = "cold";
  ep.buffers.clear(), ep.timer.clear();
  EXPECT_TRUE(check_setup({cold}, {warm, cold, ep}, "", "").differences.empty());
  EXPECT_TRUE(check_setup({ep}, {warm}, "", "").differences.empty());  // nothing to check the buffers of
  const SetupCheck two = check_setup({cold, warm}, {warm}, "", "");
  ASSERT_EQ(two.differences.size(), 1u);
  EXPECT_EQ(describe(two.differences[0]), "buffers: run cold and warm, baseline warm");
}

// A baseline written before the setup was recorded: backend, ranks and nodes from its sources'
// backend and hosts; the rest said as not checked, never refused.
TEST(RegressSetup, AnOlderBaselineChecksWhatItHasAndSaysTheRest) {
  const nlohmann::json doc = {
      {"schema", kBaselineSchema}, {"shape", "h200x4"}, {"mode", "default"},
      {"provenance", {{"created_at", "2026-11-20T00:00:00Z"}, {"created_by", "commsweep baseline a.json -o b.json"},
                      {"commsweep_version", "0.1.0"}, {"git_hash", "x"}, {"note", ""},
                      {"sources", {{{"file", "a.json"}, {"started_at", "2026-11-20T00:00:00Z"}, {"backend", "nccl"},
                                    {"git_hash", "x"}, {"hosts", {"vm", "vm", "vm", "vm"}}}}}}},
      {"rules", to_json(Baseline{})["rules"]},
      {"entries", nlohmann::json::array()}};
  const Baseline old = baseline_from_json(doc);
  const MeasuredSetup& s = old.provenance.sources.at(0).setup;
  EXPECT_EQ(s.backend, "nccl");
  EXPECT_EQ(s.ranks, "4");
  EXPECT_EQ(s.nodes, "1");
  EXPECT_EQ(s.shape, "");
  const SetupCheck same = check_setup({measured_setup(h200x4_run())}, {s}, "", old.mode);
  EXPECT_TRUE(same.differences.empty());
  EXPECT_EQ(same.not_checked,
            (std::vector<std::string>{"GPUs per node, shape, buffers, timer (the baseline does not record them)"}));
  const SetupCheck mpi = check_setup({measured_setup(mpi_run())}, {s}, "", old.mode);
  ASSERT_EQ(mpi.differences.size(), 2u);
  EXPECT_EQ(describe(mpi.differences[1]), "ranks: run 2, baseline 4");
}

TEST(RegressSetup, RoundTripsThroughTheBaselineFile) {
  Baseline b;
  b.provenance.created_at = "2026-11-20T00:00:00Z";
  b.provenance.sources.push_back({"a.json", "2026-11-20T00:00:00Z", "mpi", "x", {"vm", "vm"}, measured_setup(mpi_run())});
  const nlohmann::json j = to_json(b);
  const auto& source = j["provenance"]["sources"][0];
  EXPECT_EQ(source["ranks"], 2);
  EXPECT_EQ(source["nodes"], 1);
  EXPECT_EQ(source["gpus_per_node"], "0");
  EXPECT_EQ(source["shape"], "cpux2");
  EXPECT_EQ(source["buffers"], "cold");
  EXPECT_EQ(source["timer"], "host");
  const MeasuredSetup back = baseline_from_json(j).provenance.sources.at(0).setup;
  for (const auto& p : setup_properties()) EXPECT_EQ(back.*p.value, measured_setup(mpi_run()).*p.value) << p.name;
}

}  // namespace
}  // namespace commsweep::regress
