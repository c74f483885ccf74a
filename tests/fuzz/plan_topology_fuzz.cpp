// libFuzzer target: the topology input of `commsweep pairs --topology` (kubectl node lists,
// Kueue Topology levels, Volcano HyperNodes, hosts-to-switch lines: src/plan) must never crash,
// hang or grow without bound, whatever the bytes (the file comes from a ConfigMap or a user).
// TopologyError is the expected outcome for most inputs; what parses is bound to a few job
// nodes and planned, as a run would.
#include <cstddef>
#include <cstdint>
#include <string>

#include "plan/planners.hpp"
#include "topology/network/topology.hpp"
#include "topology/network/topology_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace commsweep::plan;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const NamedTopology named = parse_topology(text, "fuzz.yaml");
    const Topology t = bind(named, {"node-0", "node-1", "host/node-2", "10.0.0.10"});
    for (const char* pattern : {"intra-leaf", "cross-leaf", "bisection"}) (void)make_plan(parse_pattern(pattern), t);
  } catch (const TopologyError&) {
  }
  return 0;
}
