// What a topology XML says about a node: its GPUs (bus id, index, NUMA node) and NCCL net
// devices (name, port, the NIC's bus id), each with the line it is on, and the places where the
// file breaks the structure NCCL expects.
#pragma once

#include <string>
#include <vector>

#include "topology/xml.hpp"

namespace commsweep::topology {

struct Finding {
  int line = 0;  // 0: the file as a whole
  std::string reason;
};

struct GpuFact {
  std::string busid;
  int dev = -1;
  int numaid = -1;
  int line = 0;
};

struct NetFact {
  std::string name;
  int port = 0;
  std::string busid;  // the NIC's PCI function
  int numaid = -1;
  int line = 0;
};

struct TopologyFacts {
  std::vector<GpuFact> gpus;
  std::vector<NetFact> nets;
  std::vector<Finding> problems;  // structure: root, missing attributes, misplaced elements

  std::vector<std::string> nic_names() const;  // distinct, in file order
};

TopologyFacts read_topology_facts(const XmlElement& root);

// "0000:0F:00.0" -> "0000:0f:00.0"; empty when it is not a PCI address.
std::string normal_busid(const std::string& text);

}  // namespace commsweep::topology
