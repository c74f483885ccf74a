// A client of NCCL's RAS service (NCCL 2.24 and later: a thread in every NCCL process, listening
// on NCCL_RAS_ADDR, localhost:28028 by default), asked once, bounded in time: a non-blocking
// connect, the protocol handshake ("CLIENT PROTOCOL 2" -> "SERVER PROTOCOL 2"), "TIMEOUT <s>"
// (how long RAS waits for its peers' data) -> "OK", then "STATUS" (or "VERBOSE STATUS"), whose
// text NCCL writes until it closes the connection. Everything, name lookup aside, within one
// deadline: what came before it is kept, cut where it stopped.
#pragma once

#include <string>

namespace commsweep::nccl_ras {

inline constexpr const char* kDefaultAddress = "localhost:28028";
inline constexpr int kClientProtocol = 2;  // the protocol NCCL 2.24 .. 2.28 speaks

struct Request {
  std::string address = kDefaultAddress;  // NCCL_RAS_ADDR's forms: "host:port", "[v6]:port"
  double budget_s = 3;                    // connect, handshake and answer, all together
  int collective_timeout_s = 2;           // "TIMEOUT <s>"; 0 sends none
  bool verbose = false;                   // "VERBOSE STATUS"
};

enum class State {
  Answered,  // the whole STATUS text, up to NCCL closing the connection
  Partial,   // the deadline came in the middle of the text: what came is kept
  Off,       // NCCL_RAS_ENABLE=0: not asked
  Absent,    // nothing listening (connection refused): RAS not running here
  NoAnswer,  // connected, or connecting, and nothing within the deadline
  Failed,    // an unexpected answer, a closed connection, a bad address
  NotAsked,  // no NCCL in this run (the mpi backend)
};
// "answered", "partial", "off", "absent", "no answer", "failed", "not asked": the JSON's words.
const char* state_name(State s);

struct Exchange {
  State state = State::NotAsked;
  std::string address;
  int server_protocol = 0;
  std::string text;  // the STATUS answer as NCCL wrote it
  std::string why;   // for a state other than Answered: what happened, in words
  double seconds = 0;
};

// Asks once, within REQUEST.budget_s.
Exchange ask_status(const Request& request);

// The request the environment makes (NCCL_RAS_ADDR), or an Exchange that says why none is made
// (NCCL_RAS_ENABLE=0): ENABLE and ADDR as getenv returns them (null when unset).
struct Plan {
  bool ask = true;
  Request request;
  Exchange instead;  // when !ask
};
Plan plan_from_environment(const char* enable, const char* addr);

}  // namespace commsweep::nccl_ras
