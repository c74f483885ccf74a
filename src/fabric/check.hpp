// One preflight verdict: what was checked on which host, PASS / WARN / FAIL, why, and the fix.
#pragma once

#include <string>
#include <vector>

namespace commsweep::fabric {

enum class Status { Pass, Warn, Fail };

struct Check {
  std::string name;    // "host.memlock", "rdma.mlx5_0:1"
  Status status = Status::Pass;
  std::string reason;
  std::string fix;     // empty on PASS
};

std::string to_string(Status status);
Status status_from_string(const std::string& text);  // throws std::invalid_argument

inline Check pass(std::string name, std::string reason) {
  return {std::move(name), Status::Pass, std::move(reason), ""};
}
inline Check warn(std::string name, std::string reason, std::string fix) {
  return {std::move(name), Status::Warn, std::move(reason), std::move(fix)};
}
inline Check fail(std::string name, std::string reason, std::string fix) {
  return {std::move(name), Status::Fail, std::move(reason), std::move(fix)};
}

}  // namespace commsweep::fabric
