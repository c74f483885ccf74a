// read_bounded_file: every whole-file reader's bounds (a device, a directory, a FIFO without a
// writer, a file over the limit), on real files in a temporary folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/text_file.hpp"

namespace {

namespace fs = std::filesystem;
using commsweep::read_bounded_file;
using commsweep::read_text_file;

class TextFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "commsweep-text-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

// The message of the error read_bounded_file throws, "" when it throws none.
std::string error_of(const std::string& path, std::size_t max_bytes) {
  try {
    read_bounded_file(path, max_bytes);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST_F(TextFile, ReadsBytesUpToTheLimitExactly) {
  const std::string text("a\0b\n", 4);
  EXPECT_EQ(read_bounded_file(file("four", text), 4), text);
  EXPECT_EQ(read_bounded_file(file("empty", ""), 4), "");
}

TEST_F(TextFile, RefusesOneByteOverTheLimitNamingThePath) {
  const std::string path = file("five", "12345");
  const std::string why = error_of(path, 4);
  EXPECT_NE(why.find(path), std::string::npos) << why;
  EXPECT_NE(why.find("larger than 4 bytes"), std::string::npos) << why;
  EXPECT_FALSE(read_text_file(path, 4).has_value());
}

TEST_F(TextFile, DeviceWithoutEndStopsAtTheLimit) {
  const auto start = std::chrono::steady_clock::now();
  const std::string why = error_of("/dev/zero", std::size_t{1} << 20);
  EXPECT_NE(why.find("/dev/zero: larger than 1 MiB"), std::string::npos) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(TextFile, DirectoryMissingFileAndEmptyNameAreNamed) {
  EXPECT_NE(error_of(dir_.string(), 100).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of((dir_ / "absent").string(), 100).find("No such file"), std::string::npos);
  EXPECT_NE(error_of("", 100).find("no file name"), std::string::npos);
}

TEST_F(TextFile, FifoWithoutWriterDoesNotWait) {
  const std::string path = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(read_bounded_file(path, 100), "");  // no writer: end of file at once
}

}  // namespace
