// The before/after snapshots of 4-GPU NVSwitch runs (tests/fixtures/health/nvlink: captured on
// the lent machine, or stand-ins in the same format until they are; README.md there says which)
// judged again under the built-in rules: every healthy capture passes quietly, and each planted
// fault (make_nvlink_fixtures.py planted) is named alone, with its GPU and link, its counter,
// its rate and its limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "health/report.hpp"
#include "regress/compare.hpp"
#include "report/result.hpp"

namespace commsweep::health {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string folder(const std::string& name) { return std::string(COMMSWEEP_HEALTH_FIXTURES) + "/nvlink/" + name; }

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// A results or pairs file's "health" member, or a `health --json` file itself.
json member_of(const json& doc) { return doc.contains("schema") ? doc.at("health") : doc; }

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json" && e.path().filename() != "expected.json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Finding> alarms(const HealthReport& r) {
  std::vector<Finding> out;
  for (const auto& f : r.findings)
    if (f.severity != Severity::Info) out.push_back(f);
  return out;
}

TEST(HealthCaptures, EveryHealthyNvlinkCapturePassesQuietly) {
  const auto files = files_in(folder("healthy"));
  ASSERT_GE(files.size(), 4u);  // all_reduce, ep, pairs, health idle
  for (const auto& path : files) {
    const HealthReport r = rejudge(member_of(read_json(path)), builtin_rules());
    ASSERT_FALSE(r.nodes.empty()) << path;
    for (const auto& f : alarms(r)) ADD_FAILURE() << path << ": " << to_string(f.severity) << " " << f.component << ": " << describe(f);
    // At most 3 lines of the block per node (the summary, a "not read" line or two).
    const std::string block = render_block(r);
    EXPECT_LE(static_cast<std::size_t>(std::count(block.begin(), block.end(), '\n')), 3 * r.nodes.size()) << path << "\n" << block;
    EXPECT_NE(block.find(": OK\n"), std::string::npos) << path << "\n" << block;
  }
}

TEST(HealthCaptures, EachPlantedFaultIsNamedAloneWithItsRateAndLimit) {
  const json expected = read_json(folder("planted/expected.json"));
  ASSERT_EQ(expected.at("files").size(), 4u);
  for (const auto& [name, want] : expected.at("files").items()) {
    const HealthReport r = rejudge(member_of(read_json(folder("planted/" + name))), builtin_rules());
    const auto found = alarms(r);
    ASSERT_EQ(found.size(), 1u) << name << ": " << render_block(r, true);
    const Finding& f = found[0];
    EXPECT_EQ(to_string(f.severity), want.at("severity").get<std::string>()) << name;
    EXPECT_EQ(f.host, expected.at("host").get<std::string>()) << name;
    EXPECT_EQ(f.component, want.at("component").get<std::string>()) << name;
    EXPECT_EQ(f.counter, want.at("counter").get<std::string>()) << name;
    EXPECT_EQ(f.rule, want.at("rule").get<std::string>()) << name;
    for (const auto& word : want.at("says")) EXPECT_NE(describe(f).find(word.get<std::string>()), std::string::npos) << name << ": " << describe(f);
    // On screen: the summary and one finding line naming the same.
    const std::string block = render_block(r);
    EXPECT_NE(block.find("#   " + to_string(f.severity) + " " + f.host + " "), std::string::npos) << block;
  }
}

// The nightly on healthy NVLink: the capture's stored findings (written under the rules of
// 58fda70, every CRC rise a WARN) made compare exit 1; judged again under the rules in force
// (what `commsweep compare` does before regress::compare), they are INFO and it passes.
TEST(HealthCaptures, CompareJudgesAStoredRunByTheRulesInForce) {
  const json stored = member_of(read_json(folder("healthy/h100x2-all_reduce.json")));
  report::Results run;
  run.health = stored;
  EXPECT_EQ(regress::compare(run, regress::Baseline{}).exit_code, exit_code::kRegression);
  run.health = report_json(rejudge(stored, builtin_rules()));
  const regress::Comparison c = regress::compare(run, regress::Baseline{});
  EXPECT_EQ(c.exit_code, exit_code::kOk);
  EXPECT_TRUE(c.health.empty());
  // A planted fault is still one: with its rule and limit.
  run.health = report_json(rejudge(member_of(read_json(folder("planted/crc_data_500.json"))), builtin_rules()));
  const regress::Comparison planted = regress::compare(run, regress::Baseline{});
  EXPECT_EQ(planted.exit_code, exit_code::kRegression);
  ASSERT_EQ(planted.health.size(), 1u);
  EXPECT_EQ(regress::health_text(planted.health[0]),
            "nvlink_crc_data +2266, 500/s (rule nvlink_crc_data: limit 100/s, DCGM)");
}

// Findings stored without their snapshots (an older file): each rise judged again from its delta
// over the stored window; a state keeps the severity it was stored with.
TEST(HealthCaptures, FindingsWithoutSnapshotsAreJudgedFromTheirDeltas) {
  const json stored = json::parse(R"({"seconds": 7.6, "nodes": [], "unread": [], "verdict": [], "findings": [
      {"severity": "WARN", "host": "vm", "component": "GPU 0 NVLink 3", "counter": "nvlink_crc_data", "detail": "+32", "delta": 32},
      {"severity": "WARN", "host": "vm", "component": "GPU 1 NVLink 5", "counter": "nvlink_crc_data", "detail": "+3800", "delta": 3800},
      {"severity": "FAIL", "host": "vm", "component": "GPU 2", "counter": "xid", "detail": "XID 79"}]})");
  const HealthReport r = rejudge(stored, builtin_rules());
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(to_string(r.findings[0].severity) + " " + r.findings[0].component + ": " + describe(r.findings[0]), "FAIL GPU 2: xid XID 79");
  EXPECT_EQ(to_string(r.findings[1].severity) + " " + r.findings[1].component + ": " + describe(r.findings[1]),
            "WARN GPU 1 NVLink 5: nvlink_crc_data +3800, 500/s (limit 100/s, DCGM)");
  EXPECT_EQ(to_string(r.findings[2].severity) + " " + r.findings[2].component + ": " + describe(r.findings[2]),
            "INFO GPU 0 NVLink 3: nvlink_crc_data +32, 4.2/s (limit 100/s, DCGM)");
  EXPECT_EQ(r.findings[2].cls, RuleClass::NvLink);
}

}  // namespace
}  // namespace commsweep::health
