// `commsweep health`: every node's RDMA ports, PCIe links and GPUs, read once, or before and
// after --duration seconds, judged, printed, and written as JSON and Prometheus text; with
// --judge FILE, a file's stored snapshots judged again (cli/health_judge.hpp, no MPI).
#pragma once

#include <string>

namespace commsweep {

class World;

int run_health_command(World& world, int argc, char** argv, char** envp);
std::string health_help_text();

// `commsweep health --judge FILE` runs without MPI (its WorldCommand's offline form: main runs it
// before MPI starts).
int run_health_judge(int argc, char** argv);

}  // namespace commsweep
