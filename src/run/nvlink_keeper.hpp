// What rank 0 of `commsweep nvlink --json` keeps for a job that ends early (the Keeper of
// run/results_keeper.hpp): the nodes' results once gathered, else nothing (every node measures
// at once and reports at the end: a job ended before that leaves no file, and says so).
#pragma once

#include <string>

#include "nvlink/judge.hpp"
#include "nvlink/record.hpp"
#include "run/results_keeper.hpp"

namespace commsweep {

class NvlinkKeeper final : public Keeper {
 public:
  using Record = nvlink::NvlinkRun;
  NvlinkKeeper(std::string path, nvlink::NvlinkRun early);
  // The nodes' results, gathered.
  void keep(const nvlink::NvlinkRun& run);
  void write_final(const nvlink::NvlinkRun& run, const nvlink::Analysis& analysis);

 private:
  std::size_t measured() const override { return kept_.nodes.size(); }
  const char* unit() const override { return "node"; }
  nlohmann::json incomplete(const std::string& cause, const std::string& message) const override;
  nvlink::NvlinkRun kept_;
};

}  // namespace commsweep
