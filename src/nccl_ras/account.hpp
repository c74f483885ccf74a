// What a hang verdict says of NCCL's RAS: one line (the state, the communicators' status, the
// missing ranks and processes), the Errors section's lines under it, and the JSON member
// "nccl_ras" (results/schema: the exchange, what was read from it, and its raw text).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nccl_ras/client.hpp"
#include "nccl_ras/status.hpp"

namespace commsweep::nccl_ras {

// "NCCL RAS (localhost:28028): 1 communicator group RUNNING, INCOMPLETE; missing rank 1 (GPU 1
// managed by process 4321 on node n1)"; "...: 1 communicator group RUNNING, MISMATCH; no rank
// missing; rank 1 behind: AllReduce launched up to operation 41 where others reached 42 (...)"; "NCCL RAS: off (NCCL_RAS_ENABLE=0), not asked";
// "NCCL RAS: absent: nothing listening on localhost:28028 (connection refused)".
std::string account_line(const Exchange& x, const Status& s);
// The line, then the Errors section's lines as NCCL wrote them (at most MAX_DETAIL), each
// indented.
std::vector<std::string> account_lines(const Exchange& x, const Status& s, std::size_t max_detail = 12);
nlohmann::json to_json(const Exchange& x, const Status& s);

}  // namespace commsweep::nccl_ras
