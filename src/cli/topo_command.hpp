// `commsweep topo generate|validate|dump|shapes|detect`: the per-shape topology files, offline
// (no MPI). Exit codes: 0 valid / written, 2 bad input or an invalid file, 3 a call failed.
#pragma once

namespace commsweep {

int run_topo_command(int argc, char** argv, char** envp);

}  // namespace commsweep
