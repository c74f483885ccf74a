// The output contract (output/output_file.hpp) on real files of every kind, made here in a
// temporary folder (never /dev): FIFOs, symbolic links, sockets and, as root, character
// device nodes with /dev/null's and /dev/full's numbers.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <string>

#include "output/output_file.hpp"
#include "output/stdout_check.hpp"

namespace commsweep::output {
namespace {

namespace fs = std::filesystem;

class OutputContract : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("commsweep-output-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
  // A character device node with the numbers of /dev/null (1, 3) or /dev/full (1, 7); root only.
  bool make_device(const std::string& name, unsigned minor) const {
    return mknod(path(name).c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  }

  fs::path dir_;
};

TEST_F(OutputContract, ANewPathIsWrittenAtomically) {
  write_output_file(path("r.json"), "new\n");
  EXPECT_EQ(read(path("r.json")), "new\n");
  EXPECT_EQ(entries(), std::set<std::string>{"r.json"});
  EXPECT_EQ(cannot_write_reason(path("other.json")), "");
}

TEST_F(OutputContract, ASymbolicLinkIsFollowedAndItsTargetReplaced) {
  std::ofstream(path("target.json")) << "old\n";
  fs::create_symlink("target.json", path("link.json"));
  write_output_file(path("link.json"), "new\n");
  EXPECT_TRUE(fs::is_symlink(path("link.json")));  // the link stays a link
  EXPECT_EQ(read(path("target.json")), "new\n");
  EXPECT_EQ(entries(), (std::set<std::string>{"link.json", "target.json"}));
}

TEST_F(OutputContract, ADanglingSymbolicLinkCreatesItsTarget) {
  fs::create_directories(dir_ / "sub");
  fs::create_symlink("sub/made.json", path("link.json"));
  EXPECT_EQ(cannot_write_reason(path("link.json")), "");
  write_output_file(path("link.json"), "new\n");
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read(path("sub/made.json")), "new\n");
}

TEST_F(OutputContract, AFifoIsWrittenStraightThroughToItsReader) {
  ASSERT_EQ(mkfifo(path("p").c_str(), 0644), 0);
  EXPECT_EQ(cannot_write_reason(path("p")), "");  // asking opens nothing: no end of file for a reader
  auto reader = std::async(std::launch::async, [&] { return read(path("p")); });
  write_output_file(path("p"), "through the pipe\n");
  EXPECT_EQ(reader.get(), "through the pipe\n");
  struct stat st {};
  ASSERT_EQ(lstat(path("p").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // still a FIFO, not a regular file
  EXPECT_EQ(entries(), std::set<std::string>{"p"});
}

TEST_F(OutputContract, ASymbolicLinkToAFifoIsWrittenThroughIt) {
  ASSERT_EQ(mkfifo(path("p").c_str(), 0644), 0);
  fs::create_symlink("p", path("link"));
  auto reader = std::async(std::launch::async, [&] { return read(path("p")); });
  write_output_file(path("link"), "x\n");
  EXPECT_EQ(reader.get(), "x\n");
  EXPECT_TRUE(fs::is_symlink(path("link")));
}

TEST_F(OutputContract, AUnixSocketIsWrittenThrough) {
  const int server = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string p = path("s");
  ASSERT_LT(p.size(), sizeof address.sun_path);
  std::memcpy(address.sun_path, p.c_str(), p.size() + 1);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(server, 1), 0);
  auto reader = std::async(std::launch::async, [&] {
    const int c = accept(server, nullptr, nullptr);
    std::string got;
    char buffer[256];
    for (ssize_t n; (n = ::read(c, buffer, sizeof buffer)) > 0;) got.append(buffer, static_cast<std::size_t>(n));
    close(c);
    return got;
  });
  write_output_file(p, "over the socket\n");
  EXPECT_EQ(reader.get(), "over the socket\n");
  close(server);
}

TEST_F(OutputContract, ADeviceLikeDevNullIsWrittenThroughAndKept) {
  if (geteuid() != 0) GTEST_SKIP() << "making a device node needs root (mknod)";
  ASSERT_TRUE(make_device("null", 3));
  EXPECT_EQ(cannot_write_reason(path("null")), "");
  write_output_file(path("null"), "gone\n");
  struct stat st {};
  ASSERT_EQ(lstat(path("null").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));  // not replaced by a regular file
  EXPECT_EQ(entries(), std::set<std::string>{"null"});
}

TEST_F(OutputContract, ADeviceLikeDevFullFailsNamingThePathAndTheReason) {
  if (geteuid() != 0) GTEST_SKIP() << "making a device node needs root (mknod)";
  ASSERT_TRUE(make_device("full", 7));
  try {
    write_output_file(path("full"), "no room\n");
    FAIL() << "writing to a full device succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path("full")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::strerror(ENOSPC)), std::string::npos) << e.what();
  }
  struct stat st {};
  ASSERT_EQ(lstat(path("full").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// Issue 42: `--json /dev/full` ran the whole sweep, then lost it. The probe (a write of no
// bytes) refuses it before anything is measured, and leaves /dev/null's kind accepted.
TEST_F(OutputContract, ADeviceLikeDevFullIsRefusedBeforeAnythingIsMeasured) {
  EXPECT_EQ(cannot_write_reason("/dev/full"), std::strerror(ENOSPC));  // read-only use of /dev
  EXPECT_EQ(cannot_write_reason("/dev/null"), "");
  if (geteuid() != 0) GTEST_SKIP() << "making a device node needs root (mknod)";
  ASSERT_TRUE(make_device("full", 7));
  EXPECT_EQ(cannot_write_reason(path("full")), std::strerror(ENOSPC));
}

// Where a final write that failed keeps the results: a new file in $TMPDIR, named.
TEST_F(OutputContract, KeptAsideInTheTemporaryFolder) {
  const char* before = std::getenv("TMPDIR");
  const std::string saved = before ? before : "";
  setenv("TMPDIR", dir_.c_str(), 1);
  const std::string kept = keep_aside("{\"rows\": []}\n", "commsweep-results");
  before ? setenv("TMPDIR", saved.c_str(), 1) : unsetenv("TMPDIR");
  EXPECT_EQ(fs::path(kept).parent_path(), dir_);
  EXPECT_EQ(fs::path(kept).filename().string().rfind("commsweep-results-", 0), 0u) << kept;
  EXPECT_EQ(fs::path(kept).extension(), ".json");
  EXPECT_EQ(read(kept), "{\"rows\": []}\n");
  EXPECT_EQ(entries().size(), 1u);  // no temporary file left beside it
}

TEST_F(OutputContract, ADirectoryIsRefusedBeforeAnythingIsWritten) {
  fs::create_directories(dir_ / "d");
  EXPECT_EQ(cannot_write_reason(path("d")), "is a directory");
  fs::create_symlink("d", path("link"));
  EXPECT_EQ(cannot_write_reason(path("link")), "is a directory");
  EXPECT_THROW(write_output_file(path("link"), "x"), std::runtime_error);
  EXPECT_TRUE(fs::is_empty(dir_ / "d"));
}

TEST_F(OutputContract, AFifoWithoutAReaderIsAnErrorNotAHang) {
  ASSERT_EQ(mkfifo(path("p").c_str(), 0644), 0);
  EXPECT_THROW(write_output_file(path("p"), "x"), std::runtime_error);  // within about 10 s
}

TEST_F(OutputContract, ASymbolicLinkLoopIsRefused) {
  fs::create_symlink("b", path("a"));
  fs::create_symlink("a", path("b"));
  EXPECT_NE(cannot_write_reason(path("a")), "");
}

// Standard output redirected to a full device: the write error is found and said.
TEST_F(OutputContract, StandardOutputWriteErrorsEndTheRunNonZero) {
  if (geteuid() != 0) GTEST_SKIP() << "making a device node needs root (mknod)";
  ASSERT_TRUE(make_device("full", 7));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = open(path("full").c_str(), O_WRONLY);
    dup2(fd, 1);
    const int err = open(path("stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, 2);
    std::printf("a table nobody will see\n");
    _exit(finish_standard_output(0, 3));
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_EQ(read(path("stderr.txt")),
            std::string("commsweep: write error on standard output: ") + std::strerror(ENOSPC) + "\n");
}

}  // namespace
}  // namespace commsweep::output
