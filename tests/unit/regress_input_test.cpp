// Bad baselines and history: a clear error naming the file and the field; the history never
// overwrites a recorded run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "regress/baseline_json.hpp"
#include "regress/history.hpp"
#include "regress_fixtures.hpp"
#include "report/json.hpp"

namespace commsweep::regress {
namespace {

namespace fs = std::filesystem;

std::string error_of(const nlohmann::json& doc) {
  try {
    baseline_from_json(doc);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

nlohmann::json good_baseline() { return to_json(testing::baseline_of({testing::run_at(400)})); }

TEST(RegressBaselineJson, RoundTrip) {
  const Baseline b = testing::baseline_of({testing::run_at(400), testing::run_at(420)});
  const Baseline back = baseline_from_json(to_json(b));
  ASSERT_EQ(back.entries.size(), b.entries.size());
  EXPECT_EQ(back.entries[3].key, b.entries[3].key);
  EXPECT_DOUBLE_EQ(back.entries[3].bandwidth_spread_pct, b.entries[3].bandwidth_spread_pct);
  EXPECT_EQ(to_json(back), to_json(b));
}

TEST(RegressBaselineJson, AMissingRuleIsNamed) {
  auto doc = good_baseline();
  doc["rules"].erase("warn_pct");
  EXPECT_EQ(error_of(doc), "field \"rules.warn_pct\" missing");
}

TEST(RegressBaselineJson, AMissingEntryFieldIsNamedWithItsIndex) {
  auto doc = good_baseline();
  doc["entries"][2].erase("busbw_gbps");
  EXPECT_EQ(error_of(doc), "field \"entries[2].busbw_gbps\" missing");
}

TEST(RegressBaselineJson, AWrongTypeIsNamed) {
  auto doc = good_baseline();
  doc["entries"][0]["size_bytes"] = "1M";
  EXPECT_EQ(error_of(doc), "field \"entries[0].size_bytes\" has the wrong type (string)");
}

TEST(RegressBaselineJson, AnotherSchemaVersionIsRefused) {
  auto doc = good_baseline();
  doc["schema"] = "commsweep.baseline/2";
  EXPECT_NE(error_of(doc).find("\"commsweep.baseline/2\" is not the one this commsweep reads"), std::string::npos);
}

TEST(RegressBaselineJson, FailBelowWarnIsRefused) {
  auto doc = good_baseline();
  doc["rules"]["fail_pct"] = 2;
  EXPECT_EQ(error_of(doc), "field \"rules.fail_pct\" is smaller than rules.warn_pct");
}

class RegressHistory : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("commsweep-history-" + std::to_string(getpid()))).string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(RegressHistory, FileNamesAreTimeThenTestId) {
  const auto run = testing::run_at(400);
  EXPECT_EQ(history_file_name(run, 8), "20261121T031500Z-all_reduce.json");
  report::Results ep;
  ep.provenance.started_at = "2026-11-21T04:00:00Z";
  ep.ep_rows.resize(1);
  EXPECT_EQ(history_file_name(ep, 8), "20261121T040000Z-ep.json");
}

// "all" is a run of every collective the registry has (the caller's count), with or without ep;
// one fewer is named by its tests.
TEST_F(RegressHistory, AllMeansEveryCollectiveOfTheRegistry) {
  const char* names[] = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv", "gather"};
  report::Results run;
  for (const char* n : names) {
    report::ResultRow row;
    row.test = n;
    run.rows.push_back(row);
  }
  EXPECT_EQ(test_id(run, 8), "all");
  run.ep_rows.resize(1);
  EXPECT_EQ(test_id(run, 8), "all");
  run.ep_rows.clear();
  run.rows.pop_back();
  EXPECT_EQ(test_id(run, 8), "all_reduce+all_gather+reduce_scatter+alltoall+broadcast+reduce+sendrecv");
  EXPECT_EQ(test_id(run, 7), "all");
}

TEST_F(RegressHistory, ARecordedRunIsNeverOverwritten) {
  const auto run = testing::run_at(400);
  const std::string path = record_in_history(dir_, run, "first\n", 8);
  EXPECT_THROW(record_in_history(dir_, run, "second\n", 8), std::runtime_error);
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "first");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1);
}

TEST_F(RegressHistory, ReadsTheNewestRunsOfOneTestOldestFirst) {
  for (const char* t : {"2026-11-18T03:15:00Z", "2026-11-19T03:15:00Z", "2026-11-20T03:15:00Z"}) {
    auto run = testing::run_at(400);
    run.provenance.started_at = t;
    record_in_history(dir_, run, report::to_json(run).dump(), 8);
  }
  std::ofstream(dir_ + "/20261120T040000Z-ep.json") << "not read: another test id";
  const auto runs = read_history(dir_, "all_reduce", "20261120T031500Z-all_reduce.json", 1, {});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "20261119T031500Z-all_reduce.json");
}

TEST_F(RegressHistory, ACorruptHistoryFileIsNamed) {
  fs::create_directories(dir_);
  std::ofstream(dir_ + "/20261120T031500Z-all_reduce.json") << "{ not json";
  try {
    read_history(dir_, "all_reduce", "", 10, {});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("20261120T031500Z-all_reduce.json: not valid JSON"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace commsweep::regress

namespace commsweep::regress {
namespace {

TEST(RegressBaselineJson, NegativeSizesAndSampleCountsAreNamed) {
  auto doc = good_baseline();
  doc["entries"][1]["size_bytes"] = -8;
  EXPECT_EQ(error_of(doc), "field \"entries[1].size_bytes\" is -8, not a whole number >= 0");
  doc = good_baseline();
  doc["entries"][0]["samples"] = 0;
  EXPECT_EQ(error_of(doc), "field \"entries[0].samples\" is not a whole number from 1 to 2^31 - 1");
}

}  // namespace
}  // namespace commsweep::regress
