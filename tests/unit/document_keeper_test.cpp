// The one keeper of a workload's own document (run/document_keeper.hpp), which the one lifecycle
// makes for pairs, nvlink or any workload with Workload::schema run alone: what a signal leaves
// before the workload planned its record, after it, and once steps were kept; and the final file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/document_keeper.hpp"

namespace commsweep {
namespace {

namespace fs = std::filesystem;

// A workload's record as small as a Form allows: one value per step.
struct TallyRun {
  report::Provenance provenance;
  std::vector<int> values;
  bool complete = true;
  std::string interrupted_by, failure;
};

struct TallyDocument {
  using Record = TallyRun;
  static constexpr const char* kUnit = "value";
  static std::size_t measured(const Record& r) { return r.values.size(); }
  static nlohmann::json document(const Record& r) {
    return {{"schema", "test.tally/1"},   {"values", r.values},
            {"complete", r.complete},     {"interrupted_by", r.interrupted_by},
            {"failure", r.failure},       {"arguments", r.provenance.arguments}};
  }
  static void update(Record& kept, const Record& now) { kept = now; }
};

class DocumentKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("commsweep-document-keeper-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "tally.json").string();
    early_.arguments = {"tally", "--json", path_};
  }
  void TearDown() override { fs::remove_all(dir_); }
  nlohmann::json written() const {
    std::ifstream in(path_);
    return nlohmann::json::parse(in);
  }
  fs::path dir_;
  std::string path_;
  report::Provenance early_;
};

TEST_F(DocumentKeeperTest, NothingIsWrittenBeforeTheWorkloadPlannedItsRecord) {
  DocumentKeeper keeper(path_, early_);
  keeper.write_interrupted("SIGTERM", "interrupted by SIGTERM");
  EXPECT_FALSE(fs::exists(path_)) << "a document of no schema was written";
}

TEST_F(DocumentKeeperTest, ASignalLeavesThePlannedDocumentThenEachStepKept) {
  DocumentKeeper keeper(path_, early_);
  keeper.plan<TallyDocument>(TallyRun{});
  keeper.write_interrupted("SIGTERM", "interrupted by SIGTERM");
  nlohmann::json doc = written();
  EXPECT_EQ(doc["schema"], "test.tally/1");
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["interrupted_by"], "SIGTERM");
  EXPECT_NE(doc["failure"].get<std::string>().find("before any value was measured"), std::string::npos) << doc;
  EXPECT_EQ(doc["arguments"], nlohmann::json(early_.arguments)) << "the planned record lacks the early provenance";
  // A step kept after the signal is added to the file at once (mpirun may kill the job before
  // the final file).
  TallyRun now;
  now.values = {7, 9};
  keeper.keep<TallyDocument>(now);
  doc = written();
  EXPECT_EQ(doc["values"], nlohmann::json({7, 9}));
  EXPECT_EQ(doc["complete"], false);
}

TEST_F(DocumentKeeperTest, TheFinalDocumentCarriesWhatWasAttached) {
  DocumentKeeper keeper(path_, early_);
  keeper.plan<TallyDocument>(TallyRun{});
  keeper.attach("health", {{"nodes", 2}});
  keeper.write_final(TallyDocument::document(TallyRun{early_, {1}, true, "", ""}));
  const nlohmann::json doc = written();
  EXPECT_EQ(doc["values"], nlohmann::json({1}));
  EXPECT_EQ(doc["health"]["nodes"], 2);
  // After the final file the last words say nothing.
  keeper.write_incomplete("timeout", "rank 1 hung");
  EXPECT_EQ(written()["complete"], true);
}

}  // namespace
}  // namespace commsweep
