#include "runtime/gpu_sharing.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "core/strings.hpp"

namespace commsweep {

std::string ranks_sharing_gpus(const std::vector<RankGpu>& ranks) {
  // Per host in rank order: its ranks and the distinct GPUs they would take.
  std::vector<std::pair<std::string, std::size_t>> hosts;
  std::vector<std::set<std::string>> gpus;
  for (const RankGpu& r : ranks) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const auto& h) { return h.first == r.host; });
    if (it == hosts.end()) {
      hosts.emplace_back(r.host, 0);
      gpus.emplace_back();
      it = hosts.end() - 1;
    }
    ++it->second;
    gpus[static_cast<std::size_t>(it - hosts.begin())].insert(r.pci_bus_id);
  }
  std::string crowded;
  std::size_t fitting = 0;       // the ranks the job can have, one per GPU on each host
  std::set<std::size_t> per_host;  // the GPUs of each host, to say one --map-by where they agree
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const std::size_t n = gpus[i].size();
    fitting += std::min(hosts[i].second, n);
    per_host.insert(n);
    if (hosts[i].second <= n) continue;
    crowded += (crowded.empty() ? "" : "; ") + std::string("host ") + hosts[i].first + ": " +
               count_of(hosts[i].second, "rank") + ", " + count_of(n, "GPU");
  }
  if (crowded.empty()) return "";
  std::string launch = "mpirun -np " + std::to_string(fitting);
  if (hosts.size() > 1 && per_host.size() == 1) launch += " --map-by ppr:" + std::to_string(*per_host.begin()) + ":node";
  if (hosts.size() > 1 && per_host.size() > 1) launch += ", one rank per GPU on each host";
  return crowded + ": the nccl backend needs one rank per GPU (" + launch + "), or --backend mpi";
}

}  // namespace commsweep
