// `commsweep health`: every node's RDMA ports, PCIe links and GPUs, read once, or before and
// after --duration seconds, judged, printed, and written as JSON and Prometheus text.
#pragma once

#include <string>

namespace commsweep {

class World;

int run_health_command(World& world, int argc, char** argv, char** envp);
std::string health_help_text();

}  // namespace commsweep
