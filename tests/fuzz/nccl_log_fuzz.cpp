// libFuzzer target: NCCL INFO logs (fabric/nccl_log.hpp). Any bytes must parse without a crash,
// and the verdicts and the per-rank text must be computable from whatever was parsed.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fabric/nccl_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commsweep::fabric;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const auto ranks = parse_nccl_log(in);
  for (auto required : {RequiredTransport::IB, RequiredTransport::RoCE, RequiredTransport::Socket,
                        RequiredTransport::NVLink})
    (void)judge_transport(ranks, required, true);
  (void)render_transport(ranks);
  return 0;
}
