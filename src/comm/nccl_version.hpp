// NCCL versions as people write them; no NCCL header needed (unit tests build without it).
#pragma once

#include <string>

namespace commsweep {

// NCCL_VERSION_CODE / ncclGetVersion() form, 22809 -> "2.28.9"; 0 or less -> "unknown".
inline std::string nccl_version_text(int code) {
  if (code <= 0) return "unknown";
  return std::to_string(code / 10000) + "." + std::to_string((code % 10000) / 100) + "." +
         std::to_string(code % 100);
}

}  // namespace commsweep
