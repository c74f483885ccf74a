#include "core/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace commsweep {
namespace {

// Closes the descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": " + why);
}

// After a failed system call: "PATH: cannot read: <errno text>".
[[noreturn]] void fail_reading(const std::string& path) {
  fail(path, std::string("cannot read: ") + std::strerror(errno));
}

std::string mebibytes(std::size_t bytes) {
  return bytes % (std::size_t{1} << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                              : std::to_string(bytes) + " bytes";
}

}  // namespace

std::string read_bounded_file(const std::string& path, std::size_t max_bytes) {
  if (path.empty()) fail("''", "no file name");
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting forever;
  // cleared below so that a pipe whose writer is slow is still read to its end.
  Descriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) fail_reading(path);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) fail_reading(path);
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a file");
  const int flags = fcntl(fd.get(), F_GETFL);
  if (flags < 0 || fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) fail_reading(path);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_reading(path);
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      fail(path, "larger than " + mebibytes(max_bytes) + ", the most commsweep reads of such a file");
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
  try {
    return read_bounded_file(path, max_bytes);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

}  // namespace commsweep
