// SR-IOV autodetect: the PCI addresses a pod was given, from the SR-IOV device plugin's
// PCIDEVICE_* variables and from Multus's network-status annotation (downward API file),
// mapped to RDMA device names (mlx5_N) through sysfs.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric/rdma_inventory.hpp"

namespace commsweep::fabric {

struct PodPci {
  std::string pci_address;  // 0000:18:00.2
  std::string origin;       // "PCIDEVICE_NVIDIA_COM_SRIOV_RDMA" or "network-status net1"
  std::string interface;    // net1, from network-status
};

// A value that cannot be read: names what and why.
struct PodDeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One PCIDEVICE_<RESOURCE> value: "0000:18:00.2,0000:18:00.3", or the device plugin's JSON
// ({"0000:18:00.2":{"generic":{...},"rdma":{...}}}, or objects with "pci"/"pci-address"
// keys). Throws PodDeviceError naming the variable.
std::vector<PodPci> parse_pcidevice(const std::string& variable, const std::string& value);

// The downward-API annotations file (lines key="Go-quoted value"); reads
// k8s.v1.cni.cncf.io/network-status. Returns the PCI-backed attachments; the default
// interface (the one marked "default": true) goes to *default_interface.
std::vector<PodPci> parse_network_status_file(const std::string& text, std::string* default_interface);
// The annotation's JSON itself.
std::vector<PodPci> parse_network_status(const std::string& json, std::string* default_interface);

// Every PCIDEVICE_* variable in envp (sorted by name, addresses deduplicated).
std::vector<PodPci> pcidevices_from_environment(char** envp);

// The PCI addresses given to the pod: the PCIDEVICE_* variables, then the attachments of the
// annotations file's network-status (nullopt: no file) that they do not already name.
std::vector<PodPci> pod_pci_addresses(char** envp, const std::optional<std::string>& annotations,
                                      std::string* default_interface);

struct PodHca {
  std::string device;  // mlx5_3
  int port = 1;
  std::string netdev;
  std::string pci_address;
  std::string origin;
  std::optional<int> gid_index;
  bool roce = false;
  bool active = false;
};

struct PodMapping {
  std::vector<PodHca> hcas;
  std::vector<PodPci> unmatched;  // addresses with no RDMA device in sysfs
};

PodMapping map_to_rdma(const std::vector<PodPci>& pcis, const RdmaInventory& inventory);
// Every port of the inventory (bare metal, or a pod given whole devices without PCIDEVICE_*).
PodMapping all_ports(const RdmaInventory& inventory);

}  // namespace commsweep::fabric
