// JSON results: typed (numbers as numbers, booleans as booleans, N/A as null), versioned by
// schema, and refused with a clear message when they are not what this build reads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "report/json.hpp"
#include "output/output_file.hpp"

namespace commsweep::report {
namespace {

using nlohmann::json;

Results sample() {
  Results r;
  Provenance& p = r.provenance;
  p.commsweep_version = "0.1.0";
  p.git_hash = "0123456789ab";
  p.started_at = "2025-01-02T03:04:05Z";
  p.backend = "nccl";
  p.ranks = 2;
  p.hosts = {"node1", "node2"};
  p.gpus = {{0, "node1", 0, "NVIDIA H100 80GB HBM3", "0000:18:00.0"},
            {1, "node2", 3, "NVIDIA H100 80GB HBM3", "0000:2a:00.0"}};
  p.driver_version = "570.86.15";
  p.cuda_version = "12.8";
  p.nccl_version = "2.28.9";
  p.nccl_headers_version = "2.28.9";
  p.mpi_version = "Open MPI v4.1.4";
  p.environment = {{"NCCL_DEBUG", "INFO"}, {"UCX_TLS", "rc,sm"}};
  p.arguments = {"all_reduce", "-b", "8", "-e", "8G"};

  ResultRow row;
  row.test = "alltoall";
  row.size_bytes = 8589934592ull;
  row.count = 2147483648ull / 4;
  row.type = "float";
  row.redop = "none";
  row.root = -1;
  row.out_of_place = {35288.5, 243.42, 182.57, 0, 1, 35301.25, {35280.0, 35301.25}};
  row.in_place = {35298.1, 243.35, 182.51, std::nullopt, 0, 35298.1, {35298.1, 35290.0}};
  r.rows.push_back(row);
  ResultRow big = row;
  big.test = "all_reduce";
  big.size_bytes = 18446744073709551615ull;  // uint64 max survives as an integer
  big.out_of_place.wrong = 12345678901234ull;
  r.rows.push_back(big);
  r.avg_busbw_gbps = 182.54;
  r.wrong_total = 12345678901234ull;
  r.complete = false;
  return r;
}

void expect_timing_eq(const Timing& a, const Timing& b) {
  EXPECT_EQ(a.time_us, b.time_us);
  EXPECT_EQ(a.algbw_gbps, b.algbw_gbps);
  EXPECT_EQ(a.busbw_gbps, b.busbw_gbps);
  EXPECT_EQ(a.wrong, b.wrong);
  EXPECT_EQ(a.slowest_rank, b.slowest_rank);
  EXPECT_EQ(a.slowest_time_us, b.slowest_time_us);
  EXPECT_EQ(a.rank_time_us, b.rank_time_us);
}

TEST(Json, RoundTripThroughTextKeepsEveryField) {
  const Results original = sample();
  const Results back = results_from_json(json::parse(to_json(original).dump()));
  EXPECT_EQ(back.schema, kResultsSchema);
  const Provenance& p = back.provenance;
  EXPECT_EQ(p.commsweep_version, "0.1.0");
  EXPECT_EQ(p.git_hash, "0123456789ab");
  EXPECT_EQ(p.started_at, "2025-01-02T03:04:05Z");
  EXPECT_EQ(p.backend, "nccl");
  EXPECT_EQ(p.ranks, 2);
  EXPECT_EQ(p.hosts, original.provenance.hosts);
  ASSERT_EQ(p.gpus.size(), 2u);
  EXPECT_EQ(p.gpus[1].rank, 1);
  EXPECT_EQ(p.gpus[1].host, "node2");
  EXPECT_EQ(p.gpus[1].device, 3);
  EXPECT_EQ(p.gpus[1].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p.gpus[1].pci_bus_id, "0000:2a:00.0");
  EXPECT_EQ(p.driver_version, "570.86.15");
  EXPECT_EQ(p.cuda_version, "12.8");
  EXPECT_EQ(p.nccl_version, "2.28.9");
  EXPECT_EQ(p.nccl_headers_version, "2.28.9");
  EXPECT_EQ(p.mpi_version, "Open MPI v4.1.4");
  EXPECT_EQ(p.environment, original.provenance.environment);
  EXPECT_EQ(p.arguments, original.provenance.arguments);
  ASSERT_EQ(back.rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const ResultRow& a = back.rows[i];
    const ResultRow& b = original.rows[i];
    EXPECT_EQ(a.test, b.test);
    EXPECT_EQ(a.size_bytes, b.size_bytes);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.type, b.type);
    EXPECT_EQ(a.redop, b.redop);
    EXPECT_EQ(a.root, b.root);
    expect_timing_eq(a.out_of_place, b.out_of_place);
    expect_timing_eq(a.in_place, b.in_place);
  }
  EXPECT_EQ(back.avg_busbw_gbps, 182.54);
  EXPECT_EQ(back.wrong_total, 12345678901234ull);
  EXPECT_FALSE(back.complete);
}

// --buffers travels with collective sweeps only; files without it (ep, pairs, older files)
// read back as "" (measured warm, before the option existed).
TEST(Json, BuffersIsWrittenOnlyWhenKnown) {
  Results r = sample();
  EXPECT_FALSE(to_json(r).at("provenance").contains("buffers"));
  EXPECT_EQ(results_from_json(to_json(r)).provenance.buffers, "");
  r.provenance.buffers = "cold";
  EXPECT_EQ(to_json(r).at("provenance").at("buffers"), "cold");
  EXPECT_EQ(results_from_json(json::parse(to_json(r).dump())).provenance.buffers, "cold");
}

// The NCCL version policy's decisions (provenance.nccl_policy) and the run's notes (an
// --ep-impl left out by the policy) are written only when there are any, and read back.
// COMMSWEEP_WRITE_GOLDEN=1 rewrites the golden file, which tests/mpi/validate_results.py
// validates against results/schema (ctest unit.results_schema.nccl_policy).
TEST(Json, NcclPolicyAndNotesRoundTrip) {
  Results r = sample();
  EXPECT_FALSE(to_json(r).at("provenance").contains("nccl_policy"));
  EXPECT_FALSE(to_json(r).contains("notes"));
  r.provenance.nccl_headers_version = "2.31.2";
  r.provenance.nccl_version = "2.32.3";
  r.provenance.nccl_policy = {
      {"host_collectives", "accepted",
       "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible", {}},
      {"lsa_ep", "accepted_with_setting",
       "built against NCCL 2.31.2 headers, library 2.32.3: NCCL 2.32.3 keeps the device API of 2.31.2",
       {{"useRuntimeVersion", "false", "set", "the kernels were compiled ahead of time against the 2.31.2 headers"},
        {"NCCL_DEV_API_JIT", "0 or unset", "demanded", "1 would tell NCCL 2.32.3 that device code was JIT-compiled"}}}};
  r.notes = {"--ep-impl lsa left out by the NCCL version policy (the rows are alltoallv's only): rank 1 (node2): ..."};
  const std::string text = to_json(r).dump(2) + "\n";
  const std::string golden = std::string(COMMSWEEP_GOLDEN_DIR) + "/results_nccl_policy.json";
  if (std::getenv("COMMSWEEP_WRITE_GOLDEN")) std::ofstream(golden) << text;
  std::ifstream in(golden);
  const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, expected);
  const Results back = results_from_json(json::parse(text));
  ASSERT_EQ(back.provenance.nccl_policy.size(), 2u);
  const NcclPolicyDecision& lsa = back.provenance.nccl_policy[1];
  EXPECT_EQ(lsa.path, "lsa_ep");
  EXPECT_EQ(lsa.verdict, "accepted_with_setting");
  EXPECT_EQ(lsa.message, r.provenance.nccl_policy[1].message);
  ASSERT_EQ(lsa.settings.size(), 2u);
  EXPECT_EQ(lsa.settings[1].name, "NCCL_DEV_API_JIT");
  EXPECT_EQ(lsa.settings[1].how, "demanded");
  EXPECT_EQ(lsa.settings[0].why, r.provenance.nccl_policy[1].settings[0].why);
  EXPECT_EQ(back.notes, r.notes);
}

// A run ended early by a failure (run/results_keeper): the cause and what happened travel in
// the summary; a complete run has neither.
TEST(Json, FailureOfAnIncompleteRunRoundTrips) {
  Results r = sample();
  EXPECT_FALSE(to_json(r).at("summary").contains("failure"));
  r.complete = false;
  r.interrupted_by = "timeout";
  r.failure = "rank 0 (vm): all_reduce 16384 B did not finish within 5 s (-T); ranks that did not arrive: 2 (vm)";
  const json summary = to_json(r).at("summary");
  EXPECT_EQ(summary.at("interrupted_by"), "timeout");
  EXPECT_EQ(summary.at("failure"), r.failure);
  EXPECT_FALSE(summary.at("ok").get<bool>());
  const Results back = results_from_json(json::parse(to_json(r).dump()));
  EXPECT_EQ(back.interrupted_by, "timeout");
  EXPECT_EQ(back.failure, r.failure);
}

TEST(Json, NumbersAreNumbersAndBooleansAreBooleans) {
  const json doc = to_json(sample());
  EXPECT_EQ(doc.at("schema"), "commsweep.results/2");
  const json& row = doc.at("rows").at(0);
  EXPECT_EQ(row.at("kind"), "collective");
  EXPECT_TRUE(row.at("size_bytes").is_number_unsigned());
  EXPECT_TRUE(row.at("count").is_number_integer());
  EXPECT_TRUE(row.at("root").is_number_integer());
  EXPECT_EQ(row.at("root").get<int>(), -1);
  const json& out = row.at("out_of_place");
  EXPECT_TRUE(out.at("time_us").is_number_float());
  EXPECT_TRUE(out.at("algbw_gbps").is_number());
  EXPECT_TRUE(out.at("busbw_gbps").is_number());
  EXPECT_TRUE(out.at("wrong").is_number_unsigned());
  EXPECT_TRUE(out.at("rank_time_us").is_array());
  EXPECT_TRUE(doc.at("provenance").at("ranks").is_number_integer());
  const json& summary = doc.at("summary");
  EXPECT_TRUE(summary.at("complete").is_boolean());
  EXPECT_TRUE(summary.at("ok").is_boolean());
  EXPECT_TRUE(summary.at("wrong_total").is_number_unsigned());
  // The uint64 maximum is written as an integer, not rounded through a double.
  EXPECT_NE(doc.dump().find("18446744073709551615"), std::string::npos);
}

TEST(Json, NotApplicableWrongIsNull) {
  const json doc = to_json(sample());
  EXPECT_TRUE(doc.at("rows").at(0).at("in_place").at("wrong").is_null());
  EXPECT_EQ(doc.at("rows").at(0).at("out_of_place").at("wrong"), 0);
}

TEST(Json, OkMeansCompleteAndNothingWrong) {
  Results r = sample();
  EXPECT_FALSE(to_json(r).at("summary").at("ok").get<bool>());  // incomplete, wrong elements
  r.wrong_total = 0;
  EXPECT_FALSE(to_json(r).at("summary").at("ok").get<bool>());  // still incomplete
  r.complete = true;
  EXPECT_TRUE(to_json(r).at("summary").at("ok").get<bool>());
  r.wrong_total = 1;
  EXPECT_FALSE(to_json(r).at("summary").at("ok").get<bool>());
}

// Passes when reading `doc` throws std::runtime_error mentioning every word.
::testing::AssertionResult refused(const json& doc, std::initializer_list<std::string> words) {
  try {
    results_from_json(doc);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    for (const auto& w : words) {
      if (message.find(w) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks '" << w << "': " << message;
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not a std::runtime_error: " << e.what();
  }
  return ::testing::AssertionFailure() << "accepted";
}

TEST(JsonRefused, OtherSchemaVersion) {
  json doc = to_json(sample());
  doc["schema"] = "commsweep.results/3";
  EXPECT_TRUE(refused(doc, {"commsweep.results/3", "commsweep.results/2"}));
}

TEST(JsonRefused, NotAResultsDocument) {
  EXPECT_TRUE(refused(json::array(), {"schema"}));
  EXPECT_TRUE(refused(json{{"rows", json::array()}}, {"schema"}));
  EXPECT_TRUE(refused(json{{"schema", 1}}, {"schema"}));
}

TEST(JsonRefused, MissingFieldsAreNamed) {
  json doc = to_json(sample());
  doc["rows"][0]["in_place"].erase("slowest_time_us");
  EXPECT_TRUE(refused(doc, {"slowest_time_us"}));

  doc = to_json(sample());
  doc["provenance"].erase("nccl_headers_version");
  EXPECT_TRUE(refused(doc, {"nccl_headers_version"}));

  doc = to_json(sample());
  doc.erase("summary");
  EXPECT_TRUE(refused(doc, {"summary"}));
}

TEST(JsonRefused, WrongTypes) {
  json doc = to_json(sample());
  doc["rows"][0]["size_bytes"] = "8G";
  EXPECT_TRUE(refused(doc, {"malformed"}));

  doc = to_json(sample());
  doc["summary"]["complete"] = "true";  // nccl-tests habit: a string for a boolean
  EXPECT_TRUE(refused(doc, {"malformed"}));

  doc = to_json(sample());
  doc["rows"] = 5;
  EXPECT_TRUE(refused(doc, {"malformed"}));
}

class ResultsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("commsweep-json-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  // What read_results_file refuses the file with; "" when it reads it.
  std::string refusal(const std::string& p) {
    try {
      read_results_file(p);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  std::filesystem::path dir_;
};

TEST_F(ResultsFile, ReadsWhatWasWritten) {
  output::write_output_file(path("r.json"), to_json(sample()).dump(2));
  const Results r = read_results_file(path("r.json"));
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1].size_bytes, 18446744073709551615ull);
}

TEST_F(ResultsFile, CorruptJsonNamesThePath) {
  const std::string text = to_json(sample()).dump();
  write(path("cut.json"), text.substr(0, text.size() / 2));
  const std::string why = refusal(path("cut.json"));
  ASSERT_FALSE(why.empty()) << "accepted a truncated file";
  EXPECT_NE(why.find(path("cut.json")), std::string::npos) << why;
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
}

// A number beyond double is nlohmann's out_of_range, not parse_error: still "not valid JSON"
// naming the file, never an exception of another type.
TEST_F(ResultsFile, NumberOverflowNamesThePath) {
  write(path("big.json"), R"({"schema": "commsweep.results/1", "rows": [], "x": 1e400})");
  const std::string why = refusal(path("big.json"));
  ASSERT_FALSE(why.empty()) << "accepted 1e400";
  EXPECT_NE(why.find(path("big.json")), std::string::npos) << why;
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
}

TEST_F(ResultsFile, WrongSchemaNamesThePath) {
  json doc = to_json(sample());
  doc["schema"] = "nccl-tests";
  write(path("other.json"), doc.dump());
  const std::string why = refusal(path("other.json"));
  ASSERT_FALSE(why.empty()) << "accepted another schema";
  EXPECT_NE(why.find(path("other.json")), std::string::npos) << why;
  EXPECT_NE(why.find("nccl-tests"), std::string::npos) << why;
}

TEST_F(ResultsFile, MissingFileNamesThePath) {
  const std::string why = refusal(path("absent.json"));
  ASSERT_FALSE(why.empty()) << "read a file that does not exist";
  EXPECT_NE(why.find(path("absent.json")), std::string::npos) << why;
}

}  // namespace
}  // namespace commsweep::report

namespace commsweep::report {
namespace {

// Results measured on the lent 4 x H200 machine read back through the parser, and agree with
// what they say of themselves.
TEST(SampleResults, ReadBackAndAreConsistent) {
  for (const char* name : {"h200x4-all_reduce-8B-8G-x3.json", "h200x4-all-float-bf16.json"}) {
    const Results r = read_results_file(std::string(COMMSWEEP_SAMPLES_DIR) + "/" + name);
    EXPECT_EQ(r.provenance.backend, "nccl") << name;
    EXPECT_EQ(r.provenance.ranks, 4) << name;
    ASSERT_FALSE(r.rows.empty()) << name;
    EXPECT_EQ(r.wrong_total, 0u) << name;
    for (const auto& row : r.rows) {
      EXPECT_EQ(row.out_of_place.rank_time_us.size(), 4u);
      EXPECT_NEAR(row.out_of_place.algbw_gbps, row.size_bytes / row.out_of_place.time_us / 1e3,
                  1e-6 * row.out_of_place.algbw_gbps + 1e-9);
    }
    EXPECT_NEAR(r.avg_busbw_gbps, average_busbw(r.rows), 1e-9) << name;
  }
}

}  // namespace
}  // namespace commsweep::report

// The EP rows: their own top-level array ("ep_rows"), every field kept, and optional on
// reading so that files written before the EP sweep still read as schema 1.
namespace commsweep::report {
namespace {

EpRow ep_sample() {
  EpRow r;
  r.routing = "skewed";
  r.tokens = 512;
  r.hidden = 7168;
  r.topk = 8;
  r.experts = 32;
  r.dtype = "fp8";
  r.iters = 20;
  r.rank_bytes_deepep = {7397376, 0, 18446744073709551615ull};
  r.rank_bytes_fabric = {5548032, 0, 12};
  r.dispatch = {88.1, 84.02, 63.1, 0, 2, 91.5, {86.0, 86.8, 91.5}};
  r.combine = {150.77, 95.61, 71.7, 12345678901234ull, 0, 152.25, {152.25, 150.0, 150.06}};
  r.dispatch.sms = 132;  // the combine's stays 0: none counted
  r.dispatch.rank_spread_pct = (91.5 - 86.0) / 88.1 * 100;
  r.combine.rank_spread_pct = (152.25 - 150.0) / 150.77 * 100;
  r.back_to_back = EpBackToBack{301.25, {300.5, 301.25, 299.75}, 20};
  return r;
}

void expect_phase_eq(const EpPhase& a, const EpPhase& b) {
  EXPECT_EQ(a.time_us, b.time_us);
  EXPECT_EQ(a.bandwidth_gbps, b.bandwidth_gbps);
  EXPECT_EQ(a.fabric_bandwidth_gbps, b.fabric_bandwidth_gbps);
  EXPECT_EQ(a.wrong, b.wrong);
  EXPECT_EQ(a.slowest_rank, b.slowest_rank);
  EXPECT_EQ(a.slowest_time_us, b.slowest_time_us);
  EXPECT_EQ(a.rank_time_us, b.rank_time_us);
  EXPECT_EQ(a.sms, b.sms);
  EXPECT_EQ(a.rank_spread_pct, b.rank_spread_pct);
}

TEST(JsonEp, RoundTripThroughTextKeepsEveryField) {
  Results original = sample();
  original.ep_rows = {ep_sample(), ep_sample()};
  original.ep_rows[1].routing = "file";
  original.ep_rows[1].tokens = 0;
  original.ep_rows[1].dispatch.wrong.reset();  // not checked (-c 0): null, read back as not checked
  const Results back = results_from_json(json::parse(to_json(original).dump()));
  ASSERT_EQ(back.rows.size(), original.rows.size());
  ASSERT_EQ(back.ep_rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const EpRow& a = back.ep_rows[i];
    const EpRow& b = original.ep_rows[i];
    EXPECT_EQ(a.routing, b.routing);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_EQ(a.hidden, b.hidden);
    EXPECT_EQ(a.topk, b.topk);
    EXPECT_EQ(a.experts, b.experts);
    EXPECT_EQ(a.dtype, b.dtype);
    EXPECT_EQ(a.iters, b.iters);
    EXPECT_EQ(a.rank_bytes_deepep, b.rank_bytes_deepep);
    EXPECT_EQ(a.rank_bytes_fabric, b.rank_bytes_fabric);
    expect_phase_eq(a.dispatch, b.dispatch);
    expect_phase_eq(a.combine, b.combine);
    ASSERT_EQ(a.back_to_back.has_value(), b.back_to_back.has_value());
    if (a.back_to_back) {
      EXPECT_EQ(a.back_to_back->period_us, b.back_to_back->period_us);
      EXPECT_EQ(a.back_to_back->rank_period_us, b.back_to_back->rank_period_us);
      EXPECT_EQ(a.back_to_back->pairs, b.back_to_back->pairs);
    }
  }
  EXPECT_FALSE(back.ep_rows[1].dispatch.wrong.has_value());
  EXPECT_TRUE(to_json(original).at("ep_rows").at(1).at("dispatch").at("wrong").is_null());
  EXPECT_EQ(to_json(original).at("ep_rows").at(1).at("combine").at("wrong"), 12345678901234ull);
}

TEST(JsonEp, RecordLayout) {
  Results r = sample();
  r.ep_rows = {ep_sample()};
  const json doc = to_json(r);
  const json& row = doc.at("ep_rows").at(0);
  EXPECT_EQ(row.at("kind"), "ep");
  EXPECT_EQ(row.at("routing"), "skewed");
  EXPECT_EQ(row.at("dtype"), "fp8");
  EXPECT_EQ(row.at("impl"), "alltoallv");
  EXPECT_TRUE(row.at("tokens").is_number_integer());
  EXPECT_TRUE(row.at("rank_bytes_deepep").at(2).is_number_unsigned());
  for (const char* phase : {"dispatch", "combine"}) {
    const json& p = row.at(phase);
    EXPECT_EQ(p.size(), 11u) << phase;  // with expected and of_expected (issue 45): null, no entry
    EXPECT_TRUE(p.at("expected").is_null() && p.at("of_expected").is_null()) << phase;
    EXPECT_TRUE(p.at("rank_spread_pct").is_number()) << phase;
    EXPECT_TRUE(p.at("wrong").is_number_unsigned()) << phase;
    EXPECT_TRUE(p.at("fabric_bandwidth_gbps").is_number()) << phase;
  }
  EXPECT_EQ(row.at("dispatch").at("sms"), 132);
  EXPECT_TRUE(row.at("combine").at("sms").is_null());  // none counted: null, not 0
  EXPECT_EQ(row.at("nccl_path"), "");  // a row not measured here says no path
  EXPECT_EQ(row.at("back_to_back").at("period_us"), 301.25);
  EXPECT_EQ(row.at("back_to_back").at("pairs"), 20);
  EXPECT_EQ(row.size(), 15u);
  // -n 0: no pair was timed, null rather than a 0 that was never measured.
  r.ep_rows[0].back_to_back.reset();
  EXPECT_TRUE(to_json(r).at("ep_rows").at(0).at("back_to_back").is_null());
}

// Results written before issue 40 have no back-to-back pass and no spreads: none measured.
TEST(JsonEp, RowsFromBeforeTheBackToBackPassReadWithoutIt) {
  Results r = sample();
  r.ep_rows = {ep_sample()};
  json doc = to_json(r);
  doc.at("ep_rows").at(0).erase("back_to_back");
  doc.at("ep_rows").at(0).at("dispatch").erase("rank_spread_pct");
  const EpRow back = results_from_json(doc).ep_rows.at(0);
  EXPECT_FALSE(back.back_to_back.has_value());
  EXPECT_EQ(back.dispatch.rank_spread_pct, 0);
}

// Results written before the SMs were counted have no "sms": none counted.
TEST(JsonEp, PhasesWithoutSmsReadAsNoneCounted) {
  Results r = sample();
  r.ep_rows = {ep_sample()};
  json doc = to_json(r);
  doc.at("ep_rows").at(0).at("dispatch").erase("sms");
  EXPECT_EQ(results_from_json(doc).ep_rows.at(0).dispatch.sms, 0);
  EXPECT_EQ(results_from_json(to_json(r)).ep_rows.at(0).dispatch.sms, 132);
}

// Results written before --ep-impl have no "impl": their rows are the reference's.
TEST(JsonEp, RowsWithoutImplReadAsAlltoallv) {
  Results r = sample();
  r.ep_rows = {ep_sample()};
  r.ep_rows[0].impl = "lsa";
  json doc = to_json(r);
  EXPECT_EQ(results_from_json(doc).ep_rows.at(0).impl, "lsa");
  doc.at("ep_rows").at(0).erase("impl");
  EXPECT_EQ(results_from_json(doc).ep_rows.at(0).impl, "alltoallv");
}

// Both arrays are always written, empty or not.
TEST(JsonEp, BothArraysAlwaysPresent) {
  Results r = sample();
  r.rows.clear();
  json doc = to_json(r);
  EXPECT_TRUE(doc.at("rows").is_array() && doc.at("rows").empty());
  EXPECT_TRUE(doc.at("ep_rows").is_array() && doc.at("ep_rows").empty());
  r.ep_rows = {ep_sample()};
  doc = to_json(r);
  EXPECT_EQ(doc.at("ep_rows").size(), 1u);
  EXPECT_TRUE(doc.at("rows").empty());
}

TEST(JsonEp, DocumentsWithoutEpRowsStillRead) {
  json doc = to_json(sample());
  doc.erase("ep_rows");
  const Results r = results_from_json(doc);
  EXPECT_EQ(r.rows.size(), 2u);
  EXPECT_TRUE(r.ep_rows.empty());
}

TEST(JsonEp, MalformedEpRowsAreRefused) {
  Results r = sample();
  r.ep_rows = {ep_sample()};
  json doc = to_json(r);
  doc["ep_rows"][0]["combine"].erase("fabric_bandwidth_gbps");
  EXPECT_TRUE(refused(doc, {"fabric_bandwidth_gbps"}));

  doc = to_json(r);
  doc["ep_rows"][0]["tokens"] = "512";
  EXPECT_TRUE(refused(doc, {"malformed"}));

  doc = to_json(r);
  doc["ep_rows"] = json::object();
  EXPECT_TRUE(refused(doc, {"ep_rows"}));
}

}  // namespace
}  // namespace commsweep::report

namespace commsweep::report {
namespace {

// A corrupt figure must not read as a plausible one: nlohmann would turn -5 into 2^64 - 5.
TEST(JsonRefused, NegativeCountsAndTimesNameTheRowAndField) {
  json doc = to_json(sample());
  doc["rows"][1]["size_bytes"] = -5;
  EXPECT_TRUE(refused(doc, {"rows[1]", "\"size_bytes\" is -5", "whole number >= 0"}));

  doc = to_json(sample());
  doc["rows"][0]["out_of_place"]["time_us"] = -1.5;
  EXPECT_TRUE(refused(doc, {"rows[0]", "\"time_us\" is -1.5"}));

  doc = to_json(sample());
  doc["rows"][0]["in_place"]["wrong"] = 2.5;
  EXPECT_TRUE(refused(doc, {"rows[0]", "\"wrong\" is 2.5"}));

  doc = to_json(sample());
  doc["summary"]["wrong_total"] = -1;
  EXPECT_TRUE(refused(doc, {"\"wrong_total\" is -1"}));
}

}  // namespace
}  // namespace commsweep::report
