// NCCL's RAS service on a hang (src/nccl_ras): the client against a loopback server that
// replays NCCL's recorded exchange (tests/fixtures/nccl/ras), one that never answers (the bound
// holds), nothing listening, RAS off; the STATUS text read for its missing and lagging ranks.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "nccl_ras/account.hpp"
#include "nccl_ras/client.hpp"
#include "nccl_ras/status.hpp"
#include "run/hang_account.hpp"

namespace commsweep::nccl_ras {
// The loopback servers, shared with the witness's test at the end.
namespace ras_test {

inline std::string fixture(const std::string& name) {
  std::ifstream in(std::string(COMMSWEEP_SOURCE_DIR) + "/tests/fixtures/nccl/ras/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A listening socket on 127.0.0.1, port chosen by the kernel; a thread serves one connection
// with SERVE (given the connected socket) and is joined at the end.
class LoopbackServer {
 public:
  explicit LoopbackServer(std::function<void(int)> serve, bool listen_at_all = true) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    if (!listen_at_all) return;  // bound, not listening: a connect is refused
    ::listen(fd_, 4);
    thread_ = std::thread([this, serve = std::move(serve)] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      serve(c);
      ::close(c);
    });
  }
  ~LoopbackServer() {
    ::shutdown(fd_, SHUT_RDWR);  // wakes a thread still in accept
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

inline std::string read_line(int fd) {
  std::string line;
  char c = 0;
  while (::recv(fd, &c, 1, 0) == 1) {
    line += c;
    if (c == '\n') break;
  }
  return line;
}

inline void send_text(int fd, const std::string& text) { ::send(fd, text.data(), text.size(), MSG_NOSIGNAL); }

// Serves exchange.txt as NCCL did: each '>' line is read from the client (TIMEOUT with its own
// seconds), each '<' line answered, '<<' the STATUS text, then the connection closed.
inline std::function<void(int)> replay(const std::string& dir, std::atomic<int>* mismatches) {
  return [dir, mismatches](int fd) {
    std::istringstream script(fixture(dir + "/exchange.txt"));
    for (std::string step; std::getline(script, step);) {
      if (step.rfind(">> ", 0) == 0 || step.rfind("<< ", 0) == 0) {
        send_text(fd, fixture(dir + "/status.txt"));
        return;
      }
      const std::string text = step.substr(2) + "\n";
      if (step[0] == '<') {
        send_text(fd, text);
        continue;
      }
      const std::string got = read_line(fd);
      const std::string keyword = text.substr(0, text.find(' ') == std::string::npos ? text.size() : text.find(' '));
      if (keyword == "TIMEOUT" ? got.rfind("TIMEOUT ", 0) != 0 : got != text) ++*mismatches;
    }
  };
}

}  // namespace ras_test

namespace {
using namespace ras_test;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(NcclRas, TheRecordedExchangeReplayedIsReadAsNcclWroteIt) {
  std::atomic<int> mismatches{0};
  const LoopbackServer server(replay("h200-hang", &mismatches));
  Request r;
  r.address = server.address();
  const Exchange x = ask_status(r);
  EXPECT_EQ(mismatches.load(), 0);
  ASSERT_EQ(x.state, State::Answered) << x.why;
  EXPECT_EQ(x.server_protocol, 2);
  EXPECT_EQ(x.text, fixture("h200-hang/status.txt"));
  const Status s = parse_status(x.text);
  EXPECT_EQ(s.nccl_version, "2.28.9");
  EXPECT_EQ(s.nodes, 1);
  EXPECT_EQ(s.processes, 1);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].status, "RUNNING");
  EXPECT_EQ(s.groups[0].errors, "OK");
  EXPECT_EQ(s.groups[0].ranks_per_comm, 1);
  EXPECT_TRUE(s.missing_ranks.empty());
  EXPECT_EQ(account_line(x, s), "NCCL RAS (" + server.address() + "): 1 communicator group RUNNING, OK; no rank missing");
  // The same state in NCCL's own JSON format, recorded in the same hang.
  const auto j = nlohmann::json::parse(fixture("h200-hang/status-format-json.txt"));
  EXPECT_EQ(j.at("nccl_version"), s.nccl_version);
  EXPECT_EQ(j.at("communicators_count").get<std::size_t>(), s.groups.size());
  EXPECT_EQ(j.at("communicators")[0].at("missing_ranks_count").get<std::size_t>(), s.missing_ranks.size());
  const auto member = to_json(x, s);
  EXPECT_EQ(member.at("state"), "answered");
  EXPECT_EQ(member.at("text"), x.text);
}

TEST(NcclRas, AServerThatNeverAnswersCostsTheBoundAndNoMore) {
  std::atomic<bool> stop{false};
  const LoopbackServer server([&](int) {
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  Request r;
  r.address = server.address();
  r.budget_s = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const Exchange x = ask_status(r);
  const double took = seconds_since(start);
  stop = true;
  EXPECT_EQ(x.state, State::NoAnswer);
  EXPECT_GE(took, 0.4);
  EXPECT_LT(took, 1.5);
  EXPECT_EQ(account_line(x, parse_status(x.text)),
            "NCCL RAS (" + server.address() + "): no answer: connected, but no answer to CLIENT PROTOCOL within the deadline");
}

TEST(NcclRas, AnAnswerCutAtTheDeadlineIsKeptAsFarAsItCame) {
  std::atomic<bool> stop{false};
  const std::string status = fixture("planted-hang-rank1/status.txt");
  const std::string half = status.substr(0, status.find("Warnings"));
  const LoopbackServer server([&](int fd) {
    read_line(fd);
    send_text(fd, "SERVER PROTOCOL 2\n");
    read_line(fd);
    send_text(fd, "OK\n");
    read_line(fd);
    send_text(fd, half);  // and then nothing: RAS still waiting for a peer
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  Request r;
  r.address = server.address();
  r.budget_s = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const Exchange x = ask_status(r);
  EXPECT_LT(seconds_since(start), 1.5);
  stop = true;
  EXPECT_EQ(x.state, State::Partial);
  EXPECT_EQ(x.text, half);
  EXPECT_EQ(parse_status(x.text).groups.size(), 1u);
}

TEST(NcclRas, NothingListeningIsSaidInOneLineAtOnce) {
  const LoopbackServer closed([](int) {}, false);
  Request r;
  r.address = closed.address();
  const auto start = std::chrono::steady_clock::now();
  const Exchange x = ask_status(r);
  EXPECT_LT(seconds_since(start), 0.5);
  EXPECT_EQ(x.state, State::Absent);
  EXPECT_EQ(account_line(x, parse_status(x.text)),
            "NCCL RAS: absent: nothing listening on " + closed.address() + " (connection refused)");
}

TEST(NcclRas, TheEnvironmentSaysWhereAndWhetherToAsk) {
  const Plan off = plan_from_environment("0", nullptr);
  EXPECT_FALSE(off.ask);
  EXPECT_EQ(account_line(off.instead, Status{}), "NCCL RAS: off (NCCL_RAS_ENABLE=0), not asked");
  const Plan there = plan_from_environment(nullptr, "[::1]:29000");
  EXPECT_TRUE(there.ask);
  EXPECT_EQ(there.request.address, "[::1]:29000");
  EXPECT_EQ(plan_from_environment("1", nullptr).request.address, "localhost:28028");
  Request bad;
  bad.address = "localhost:port";
  EXPECT_EQ(ask_status(bad).state, State::Failed);
  EXPECT_EQ(ask_status(bad).why, "NCCL_RAS_ADDR 'localhost:port' is not host:port");
}

TEST(NcclRas, TheRankThatNeverLaunchedIsNamedBehind) {
  Exchange x;
  x.state = State::Answered;
  x.address = "localhost:28028";
  x.text = fixture("planted-hang-rank1/status.txt");
  const Status s = parse_status(x.text);
  ASSERT_EQ(s.mismatches.size(), 1u);
  EXPECT_EQ(s.mismatches[0].collective, "AllReduce");
  EXPECT_EQ(s.mismatches[0].communicator, "#0-0 (a4b6971a8f756037)");
  ASSERT_EQ(s.mismatches[0].behind().size(), 1u);
  EXPECT_EQ(s.mismatches[0].behind()[0].rank, 1);
  EXPECT_EQ(account_line(x, s),
            "NCCL RAS (localhost:28028): 1 communicator group RUNNING, MISMATCH; no rank missing; rank 1 behind: "
            "AllReduce launched up to operation 41 where others reached 42 (GPU 1 managed by process 622 on node "
            "192.0.2.2)");
  EXPECT_EQ(to_json(x, s).at("ranks_behind")[0].at("rank"), 1);
}

TEST(NcclRas, AMissingRankAndADeadProcessAreNamed) {
  Exchange x;
  x.state = State::Answered;
  x.address = "localhost:28028";
  x.text = fixture("planted-dead-rank3/status.txt");
  const Status s = parse_status(x.text);
  ASSERT_EQ(s.missing_ranks.size(), 1u);
  EXPECT_EQ(s.missing_ranks[0].rank, 3);
  EXPECT_EQ(s.missing_ranks[0].detail, "GPU 1 managed by process 7311 on node 192.0.2.12");
  EXPECT_EQ(s.dead_processes, std::vector<std::string>{"Process 7311 on node 192.0.2.12 managing GPU 1"});
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(account_line(x, s),
            "NCCL RAS (localhost:28028): 1 communicator group RUNNING, INCOMPLETE; missing rank 3 (GPU 1 managed by "
            "process 7311 on node 192.0.2.12); 1 process dead: Process 7311 on node 192.0.2.12 managing GPU 1");
  const auto lines = account_lines(x, s);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1], "  DEAD");
}

}  // namespace
}  // namespace commsweep::nccl_ras

namespace commsweep {
namespace {

// Sets NAME to VALUE (unset for null) for the test's length, as it was afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* was = std::getenv(name)) was_ = was;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (was_) ::setenv(name_, was_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> was_;
};

// The run's witness (run/hang_account.hpp) reads NCCL's environment and asks where it says.
TEST(NcclRasWitness, TheNcclBackendAsksWhereNcclRasAddrSaysAndOthersSayWhyNot) {
  std::atomic<int> mismatches{0};
  const nccl_ras::ras_test::LoopbackServer server(nccl_ras::ras_test::replay("h200-hang", &mismatches));
  {
    const ScopedEnv addr("NCCL_RAS_ADDR", server.address().c_str());
    const ScopedEnv enable("NCCL_RAS_ENABLE", nullptr);
    HangAccount nccl(true);
    const auto lines = nccl.ask();
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], "NCCL RAS (" + server.address() + "): 1 communicator group RUNNING, OK; no rank missing");
    EXPECT_EQ(mismatches.load(), 0);
  }
  {
    const ScopedEnv enable("NCCL_RAS_ENABLE", "0");
    HangAccount off(true);
    EXPECT_EQ(off.ask(), std::vector<std::string>{"NCCL RAS: off (NCCL_RAS_ENABLE=0), not asked"});
  }
  HangAccount mpi(false);
  EXPECT_EQ(mpi.ask(), std::vector<std::string>{"NCCL RAS: not asked (mpi backend: no NCCL)"});
}

}  // namespace
}  // namespace commsweep
