// output::write_output_file: a results file is either the old one or the complete new one, never
// half written (a job killed mid-write, a full disk), and a failure says which path.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "output/output_file.hpp"

namespace commsweep::report {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("commsweep-atomic-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::set<std::string> entries(const fs::path& dir) const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
  }

  // Passes when writing throws std::runtime_error naming `target`.
  static ::testing::AssertionResult fails_naming(const std::string& target) {
    try {
      output::write_output_file(target, "new\n");
    } catch (const std::runtime_error& e) {
      if (std::string(e.what()).find(target) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks the path: " << e.what();
      }
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "the write succeeded";
  }

  fs::path dir_;
};

TEST_F(AtomicWrite, WritesTheText) {
  output::write_output_file(path("r.json"), "{\"a\": 1}\n");
  EXPECT_EQ(read(path("r.json")), "{\"a\": 1}\n");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"r.json"});  // no temporary left behind
}

TEST_F(AtomicWrite, ReplacesAnExistingFile) {
  std::ofstream(path("r.json")) << "old contents that are longer than the new ones\n";
  output::write_output_file(path("r.json"), "new\n");
  EXPECT_EQ(read(path("r.json")), "new\n");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"r.json"});
}

TEST_F(AtomicWrite, EmptyTextMakesAnEmptyFile) {
  output::write_output_file(path("empty.json"), "");
  EXPECT_TRUE(fs::exists(path("empty.json")));
  EXPECT_EQ(fs::file_size(path("empty.json")), 0u);
}

TEST_F(AtomicWrite, ReadableByOthers) {
  output::write_output_file(path("r.json"), "x");
  const auto perms = fs::status(path("r.json")).permissions();
  EXPECT_NE(perms & fs::perms::others_read, fs::perms::none);  // mkstemp alone gives 0600
}

TEST_F(AtomicWrite, MissingDirectoryFailsNamingThePath) {
  const std::string target = path("no/such/dir/r.json");
  EXPECT_TRUE(fails_naming(target));
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  EXPECT_TRUE(entries(dir_).empty());
}

// The rename is the last step; when it fails, what was at the path stays as it was.
TEST_F(AtomicWrite, FailedReplaceLeavesTheTargetUntouched) {
  fs::create_directories(dir_ / "r.json");  // a directory where the file should go
  std::ofstream(path("r.json/keep")) << "old\n";
  EXPECT_TRUE(fails_naming(path("r.json")));
  EXPECT_EQ(read(path("r.json/keep")), "old\n");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"r.json"});
  EXPECT_EQ(entries(dir_ / "r.json"), std::set<std::string>{"keep"});
}

// procfs refuses new files even to root, so this failure path runs on every machine.
TEST_F(AtomicWrite, ReadOnlyFilesystemLeavesTheExistingFileUntouched) {
  const std::string target = "/proc/version";
  const std::string before = read(target);
  ASSERT_FALSE(before.empty());
  EXPECT_TRUE(fails_naming(target));
  EXPECT_EQ(read(target), before);
}

TEST_F(AtomicWrite, UnwritableDirectoryLeavesTheOldFileUntouched) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  std::ofstream(path("r.json")) << "old\n";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_TRUE(fails_naming(path("r.json")));
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_EQ(read(path("r.json")), "old\n");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"r.json"});
}

}  // namespace
}  // namespace commsweep::report
