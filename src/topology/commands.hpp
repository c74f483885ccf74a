// What the verbs of `commsweep topo` do (offline, no MPI), once cli/topo_command.cpp has read
// their flags: each prints to standard output (a problem found to standard error) and returns the
// verb's exit code; bad input is a usage Error, a file not written an output Error. `topo dump`
// is NCCL's own view (topology/nccl/nccl_dump.hpp), checked here once NCCL has written it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace commsweep::topology {

// `topo generate`: OUT/S.xml (NCCL_TOPO_FILE) and OUT/S.conf (/etc/nccl.conf) of each shape.
struct GenerateRequest {
  std::vector<std::string> shapes;  // --shape, repeated; none: every known shape
  std::string descriptions;         // --descriptions DIR; "": the built-in descriptions
  std::string out = "topology";     // --out DIR
  bool check = false;               // --check: write nothing, name each file that differs (exit 2)
};
int generate_files(const GenerateRequest& request);

// `topo shapes`: each known shape's GPUs, NICs and RDMA resource, a line each.
int list_shapes(const std::string& descriptions);

// `topo validate FILE`: the file's XML, its GPUs and NICs against the shape (when one is known)
// and, unless SYSFS_ROOT is none (--no-node), against the node read under SYSFS_ROOT.
struct ValidateRequest {
  std::string file;
  std::string shape;  // --shape; "": COMMSWEEP_SHAPE, then the instance-type label
  std::string descriptions;
  std::optional<std::string> sysfs_root;
};
int validate_file(const ValidateRequest& request);

// `topo dump`, after NCCL wrote its view of this node to PATH: the file checked and reported.
int report_nccl_dump(const std::string& path);

// `topo detect`: which shape this node is (SHAPE: --shape, else COMMSWEEP_SHAPE, else the
// instance-type label), and from where.
int print_detected_shape(const std::string& shape);

}  // namespace commsweep::topology
