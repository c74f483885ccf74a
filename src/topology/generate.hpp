// From a shape's description to the files a node mounts: the NCCL topology XML (NCCL_TOPO_FILE)
// and the recommended NCCL settings (/etc/nccl.conf).
#pragma once

#include <string>

#include "topology/shape_description.hpp"

namespace commsweep::topology {

// The XML NCCL reads with NCCL_TOPO_FILE: <system version="1"> with one <cpu> per NUMA node,
// the PCI tree under it, <gpu> with its <nvlink>s, and <nic><net/></nic> per NIC.
std::string topology_xml(const ShapeDescription& shape);

// KEY=value lines with a comment saying why, as NCCL reads /etc/nccl.conf; NCCL_IB_HCA is the
// exact-match list of the shape's RDMA NICs and NCCL_TOPO_FILE the ConfigMap mount.
std::string nccl_conf(const ShapeDescription& shape, const std::string& topology_file);

// Where the Job mounts the topology ConfigMap: /etc/commsweep/topology/<shape>.xml.
std::string default_topology_path(const std::string& shape);

}  // namespace commsweep::topology
