#include "run/nvlink_keeper.hpp"

#include <utility>

#include "nvlink/nvlink_json.hpp"

namespace commsweep {

NvlinkKeeper::NvlinkKeeper(std::string path, nvlink::NvlinkRun early) : Keeper(std::move(path)), kept_(std::move(early)) {}

void NvlinkKeeper::keep(const nvlink::NvlinkRun& run) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_ = run;
  rewrite_if_interrupted();
}

void NvlinkKeeper::write_final(const nvlink::NvlinkRun& run, const nvlink::Analysis& analysis) {
  const std::lock_guard<std::mutex> lock(mutex_);
  write(nvlink::to_json(run, analysis));
}

nlohmann::json NvlinkKeeper::incomplete(const std::string& cause, const std::string& message) const {
  nvlink::NvlinkRun r = kept_;
  r.complete = false;
  r.interrupted_by = cause;
  r.failure = message;
  return nvlink::to_json(r, nvlink::analyse(r));
}

}  // namespace commsweep
