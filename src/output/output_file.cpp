#include "output/output_file.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/error.hpp"

namespace commsweep::output {
namespace {

// Linux's own limit on links followed in one lookup (MAXSYMLINKS).
constexpr int kMaxLinks = 40;
// A FIFO whose reader starts a moment later (`commsweep --json p & cat p`) is waited for this
// long; a FIFO nobody reads would otherwise keep the job from ending.
constexpr auto kFifoReaderWait = std::chrono::seconds(10);

std::string errno_text() { return std::strerror(errno); }

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// /dev/stdout -> /proc/self/fd/1: the kernel's "magic" links name open files, not paths
// (pipe:[123]); such a path is opened as it is, never resolved and replaced.
bool names_an_open_file(const std::string& path) {
  return path.rfind("/proc/", 0) == 0 || path.rfind("/dev/fd/", 0) == 0;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISBLK(mode)) return "is a block device (commsweep writes files, FIFOs, sockets and character devices)";
  return "is not a file, FIFO, socket or character device";
}

Plan by_mode(const std::string& target, mode_t mode) {
  if (S_ISREG(mode)) return {Plan::How::Atomic, target, {}};
  if (S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode)) return {Plan::How::Stream, target, {}};
  return {Plan::How::Refused, target, kind_of(mode)};
}

// A symbolic link: where it leads. Through /proc or /dev/fd: the path as given, written
// straight through (a regular file behind /dev/stdout is appended to, not replaced: the shell
// redirected the table there too). A dangling link: the name at its end, created.
Plan follow(const std::string& path) {
  std::string at = path;
  for (int hop = 0; hop < kMaxLinks; ++hop) {
    if (names_an_open_file(at)) {
      struct stat st {};
      if (stat(path.c_str(), &st) != 0) return {Plan::How::Refused, path, errno_text()};
      if (S_ISREG(st.st_mode)) return {Plan::How::Append, path, {}};
      Plan p = by_mode(path, st.st_mode);
      return p;
    }
    struct stat l {};
    if (lstat(at.c_str(), &l) != 0) {
      if (errno == ENOENT) return {Plan::How::Atomic, at, {}};
      return {Plan::How::Refused, at, errno_text()};
    }
    if (!S_ISLNK(l.st_mode)) return by_mode(at, l.st_mode);
    char buffer[4096];
    const ssize_t n = readlink(at.c_str(), buffer, sizeof buffer - 1);
    if (n < 0) return {Plan::How::Refused, at, errno_text()};
    std::string next(buffer, static_cast<std::size_t>(n));
    if (next.empty()) return {Plan::How::Refused, at, "is an empty symbolic link"};
    at = next[0] == '/' ? next : folder_of(at) + "/" + next;
  }
  return {Plan::How::Refused, path, std::strerror(ELOOP)};
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error(ErrorKind::Output, "cannot write " + path + ": " + why);
}

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = errno_text();
      close(fd);
      fail(path, why);
    }
    done += static_cast<std::size_t>(n);
  }
}

int connect_socket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) fail(path, "socket path too long");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  for (const int type : {SOCK_STREAM, SOCK_SEQPACKET}) {
    const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(path, errno_text());
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return fd;
    const int saved = errno;
    close(fd);
    if (saved != EPROTOTYPE) fail(path, std::strerror(saved));
  }
  fail(path, "a socket that takes no stream");
}

// A FIFO is opened without blocking (no reader: ENXIO) and retried until a reader comes.
int open_fifo(const std::string& path) {
  const auto until = std::chrono::steady_clock::now() + kFifoReaderWait;
  for (;;) {
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      const int flags = fcntl(fd, F_GETFL);
      fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
      return fd;
    }
    if (errno != ENXIO) fail(path, errno_text());
    if (std::chrono::steady_clock::now() > until) {
      fail(path, "a FIFO that nobody opened for reading within 10 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void write_through(const std::string& path, const std::string& text, bool append) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) fail(path, errno_text());
  int fd = -1;
  if (S_ISSOCK(st.st_mode)) {
    fd = connect_socket(path);
  } else if (S_ISFIFO(st.st_mode)) {
    fd = open_fifo(path);
  } else {
    fd = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (append ? O_APPEND : 0));
    if (fd < 0) fail(path, errno_text());
  }
  write_all(fd, text, path);
  if (close(fd) != 0) fail(path, errno_text());
}

std::string temporary_beside(const std::string& path) { return path + ".tmp.XXXXXX"; }

// A character device that refuses every write (/dev/full: ENOSPC) would take the whole run's
// results at its end: it is asked now with a write of no bytes, which the kernel hands to the
// driver (/dev/full refuses it) and which puts nothing on any device that accepts writes (/dev/null,
// a terminal). Opened without blocking (a serial line without carrier) and never as a
// controlling terminal. A FIFO is not opened here: its reader would see an end of file.
std::string refused_by_device(const std::string& target) {
  struct stat st {};
  if (stat(target.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return {};
  const int fd = open(target.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno == EAGAIN ? "" : errno_text();
  std::string why;
  if (write(fd, "", 0) < 0 && errno != EAGAIN) why = errno_text();
  close(fd);
  return why;
}

}  // namespace

Plan plan_for(const std::string& path) {
  if (path.empty()) return {Plan::How::Refused, path, "no file name"};
  return follow(path);
}

std::string cannot_write_reason(const std::string& path) {
  const Plan plan = plan_for(path);
  switch (plan.how) {
    case Plan::How::Refused:
      return plan.why;
    case Plan::How::Stream:
    case Plan::How::Append:
      if (access(plan.target.c_str(), W_OK) != 0) return errno_text();
      return refused_by_device(plan.target);
    case Plan::How::Atomic: {
      std::string probe = temporary_beside(plan.target);  // where the write creates its own
      const int fd = mkstemp(probe.data());
      if (fd < 0) return errno_text();
      close(fd);
      unlink(probe.c_str());
      return {};
    }
  }
  return {};
}

void write_output_file(const std::string& path, const std::string& text) {
  const Plan plan = plan_for(path);
  switch (plan.how) {
    case Plan::How::Refused: fail(path, plan.why);
    case Plan::How::Stream: write_through(plan.target, text, false); return;
    case Plan::How::Append: write_through(plan.target, text, true); return;
    case Plan::How::Atomic:
      try {
        write_file_atomically(plan.target, text);
      } catch (const std::runtime_error& e) {
        if (plan.target == path) throw;
        throw Error(ErrorKind::Output, std::string(e.what()) + " (the target of the symbolic link " + path + ")");
      }
      return;
  }
}

std::string keep_aside(const std::string& text, const std::string& stem) {
  const char* folder = std::getenv("TMPDIR");
  const std::string suffix = ".json";
  std::string path = std::string(folder && *folder ? folder : "/tmp") + "/" + stem + "-XXXXXX" + suffix;
  const int fd = mkstemps(path.data(), static_cast<int>(suffix.size()));  // the name, reserved
  if (fd < 0) fail(path, errno_text());
  close(fd);
  try {
    write_file_atomically(path, text);
  } catch (const std::runtime_error&) {
    unlink(path.c_str());
    throw;
  }
  return path;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  std::string tmp = temporary_beside(path);
  const int fd = mkstemp(tmp.data());
  if (fd < 0) fail(path, errno_text());
  auto give_up = [&](const char* step) {
    const std::string reason = errno_text();
    close(fd);
    unlink(tmp.c_str());
    fail(path, std::string(step) + ": " + reason);
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      give_up("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0) give_up("fsync");
  if (fchmod(fd, 0644) != 0) give_up("chmod");
  if (close(fd) != 0) {
    const std::string reason = errno_text();
    unlink(tmp.c_str());
    fail(path, "close: " + reason);
  }
  // The last look before the rename: what appeared at the path meanwhile (a FIFO, a folder)
  // is never replaced.
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    unlink(tmp.c_str());
    fail(path, kind_of(st.st_mode) + std::string(" (it changed while commsweep wrote)"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = errno_text();
    unlink(tmp.c_str());
    fail(path, "rename: " + reason);
  }
}

}  // namespace commsweep::output
