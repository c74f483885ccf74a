#include "nccl_ras/client.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace commsweep::nccl_ras {
namespace {

using Clock = std::chrono::steady_clock;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

class Deadline {
 public:
  explicit Deadline(double seconds)
      : end_(Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds))) {}
  // Milliseconds left for poll, at least 0.
  int left_ms() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
  }

 private:
  Clock::time_point end_;
};

// Waits for EVENTS on FD until the deadline: true when they came.
bool wait_for(int fd, short events, const Deadline& deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, deadline.left_ms());
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

// "host:port" / "[v6]:port" / "host" (port 28028) -> host and port.
bool split_address(const std::string& address, std::string* host, std::string* port) {
  *port = "28028";
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find(']');
    if (close == std::string::npos) return false;
    *host = address.substr(1, close - 1);
    if (close + 1 < address.size()) {
      if (address[close + 1] != ':') return false;
      *port = address.substr(close + 2);
    }
  } else {
    const auto colon = address.rfind(':');
    *host = address.substr(0, colon);
    if (colon != std::string::npos) *port = address.substr(colon + 1);
  }
  return !host->empty() && !port->empty() && port->find_first_not_of("0123456789") == std::string::npos;
}

class Conversation {
 public:
  Conversation(int fd, const Deadline& deadline) : fd_(fd), deadline_(deadline) {}
  bool send(const std::string& line) {
    std::size_t sent = 0;
    while (sent < line.size()) {
      if (!wait_for(fd_, POLLOUT, deadline_)) return false;
      const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }
  // One line, its '\n' included; "" when the deadline came or the peer closed (closed() says).
  std::string line() {
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string out = buffer_.substr(0, nl + 1);
        buffer_.erase(0, nl + 1);
        return out;
      }
      if (!more()) return "";
    }
  }
  // Everything up to the peer's close; false when the deadline came first (the text so far is
  // in REST).
  bool rest(std::string* rest) {
    while (!closed_ && more()) {
    }
    *rest = std::move(buffer_);
    buffer_.clear();
    return closed_;
  }
  bool closed() const { return closed_; }
  bool timed_out() const { return timed_out_; }

 private:
  bool more() {
    if (closed_) return false;
    if (!wait_for(fd_, POLLIN, deadline_)) {
      timed_out_ = true;
      return false;
    }
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  const Deadline& deadline_;
  std::string buffer_;
  bool closed_ = false;
  bool timed_out_ = false;
};

// A non-blocking connect to one of ADDRESS's addresses within the deadline; -1 with WHY.
int connect_to(const std::string& address, const Deadline& deadline, State* state, std::string* why) {
  std::string host, port;
  if (!split_address(address, &host, &port)) {
    *state = State::Failed;
    *why = "NCCL_RAS_ADDR '" + address + "' is not host:port";
    return -1;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  // A name is looked up before the deadline starts to count: NCCL's default is localhost, which
  // the hosts file answers.
  if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    *state = State::Failed;
    *why = "cannot resolve '" + host + "': " + gai_strerror(rc);
    return -1;
  }
  *state = State::Absent;
  *why = "nothing listening on " + address + " (connection refused)";
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    const int s = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (s < 0) continue;
    int rc = ::connect(s, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (!wait_for(s, POLLOUT, deadline)) {
        ::close(s);
        *state = State::NoAnswer;
        *why = "no connection to " + address + " within the deadline";
        break;
      }
      int error = 0;
      socklen_t len = sizeof error;
      ::getsockopt(s, SOL_SOCKET, SO_ERROR, &error, &len);
      rc = error == 0 ? 0 : -1;
      errno = error;
    }
    if (rc == 0) {
      fd = s;
      break;
    }
    if (errno != ECONNREFUSED) {
      *state = State::Failed;
      *why = "cannot connect to " + address + ": " + std::strerror(errno);
    }
    ::close(s);
  }
  ::freeaddrinfo(found);
  return fd;
}

}  // namespace

const char* state_name(State s) {
  switch (s) {
    case State::Answered: return "answered";
    case State::Partial: return "partial";
    case State::Off: return "off";
    case State::Absent: return "absent";
    case State::NoAnswer: return "no answer";
    case State::Failed: return "failed";
    case State::NotAsked: return "not asked";
  }
  return "?";
}

Exchange ask_status(const Request& request) {
  const auto start = Clock::now();
  const Deadline deadline(request.budget_s);
  Exchange x;
  x.address = request.address;
  auto done = [&](State state, std::string why) {
    x.state = state;
    x.why = std::move(why);
    x.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return x;
  };
  State state = State::Failed;
  std::string why;
  const Socket socket(connect_to(request.address, deadline, &state, &why));
  if (socket.fd() < 0) return done(state, why);
  Conversation talk(socket.fd(), deadline);
  auto silent = [&](const std::string& after) {
    return done(talk.closed() ? State::Failed : State::NoAnswer,
                talk.closed() ? "the connection was closed after " + after
                              : "connected, but no answer to " + after + " within the deadline");
  };
  if (!talk.send("CLIENT PROTOCOL " + std::to_string(kClientProtocol) + "\n")) return silent("CLIENT PROTOCOL");
  const std::string hello = talk.line();
  if (hello.empty()) return silent("CLIENT PROTOCOL");
  const std::string server = "SERVER PROTOCOL ";
  if (hello.compare(0, server.size(), server) != 0)
    return done(State::Failed, "not NCCL's RAS service: it answered '" + hello.substr(0, hello.size() - 1) + "'");
  x.server_protocol = std::atoi(hello.c_str() + server.size());
  if (request.collective_timeout_s > 0) {
    if (!talk.send("TIMEOUT " + std::to_string(request.collective_timeout_s) + "\n")) return silent("TIMEOUT");
    const std::string ok = talk.line();
    if (ok.empty()) return silent("TIMEOUT");
    if (ok != "OK\n") return done(State::Failed, "TIMEOUT answered '" + ok.substr(0, ok.size() - 1) + "'");
  }
  if (!talk.send(request.verbose ? "VERBOSE STATUS\n" : "STATUS\n")) return silent("STATUS");
  const bool whole = talk.rest(&x.text);
  if (whole) return done(State::Answered, "");
  if (x.text.empty()) return silent("STATUS");
  return done(State::Partial, "the answer was cut at the deadline");
}

Plan plan_from_environment(const char* enable, const char* addr) {
  Plan p;
  if (addr && *addr) p.request.address = addr;
  if (enable && std::strcmp(enable, "0") == 0) {
    p.ask = false;
    p.instead.state = State::Off;
    p.instead.address = p.request.address;
    p.instead.why = "NCCL_RAS_ENABLE=0";
  }
  return p;
}

}  // namespace commsweep::nccl_ras
