// Which transport MPI chose, for the mpi backend's preamble ("UCX", "shared memory", "TCP").
// Open MPI opens every point-to-point component it has (pml: ob1, ucx, cm; btl: vader / sm,
// tcp, self, openib, ...), asks each whether it can run here, and closes (dlclose) those it
// did not select. So after MPI_Init the mca_pml_* and mca_btl_* libraries still mapped into
// the process (/proc/self/maps) are the ones in use. Nothing here calls MPI.
#pragma once

#include <string>
#include <vector>

namespace commsweep::mpitransport {

struct Components {
  std::vector<std::string> pml;  // "ob1", "ucx", "cm"
  std::vector<std::string> btl;  // "vader", "tcp", "self", ...
  std::vector<std::string> mtl;  // "ofi", "psm2" (under pml cm)
};

// The components named by the mca_{pml,btl,mtl}_NAME.so paths of a /proc/PID/maps text.
Components components_in_maps(const std::string& maps);

// "transport: Open MPI pml ob1 with btl vader (shared memory) within a host, tcp (TCP) between
// hosts", "transport: UCX (Open MPI pml ucx)"; empty when no Open MPI component is seen (another
// MPI, or a static build).
std::string describe(const Components& c);

// describe() of this process's own /proc/self/maps (call after MPI_Init).
std::string this_process_transport();

}  // namespace commsweep::mpitransport
