// `commsweep compare` and `commsweep baseline`: offline, files only (no MPI).
#pragma once

namespace commsweep {

int run_compare_command(int argc, char** argv, char** envp);
int run_baseline_command(int argc, char** argv, char** envp);

}  // namespace commsweep
