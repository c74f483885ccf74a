// The hardware's own health state on one node, as typed records: RDMA ports and their
// counters, the PCIe links of GPUs and NICs with their AER counts, and the GPUs as NVML sees
// them. Readers fill them (rdma_reader, pcie_reader, gpu_reader); nothing here knows MPI.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "health/counter.hpp"

namespace commsweep::health {

struct PortHealth {
  std::string device;       // mlx5_3
  int port = 1;
  std::string pci_address;  // 0000:0c:00.0
  // The NIC model, for comparing a port with its like: the device's hca_type ("MT4129"), else
  // its board_id, else "PCI 0x1021" (device/device); "" where none was read.
  std::string nic_model;
  std::string state;        // ACTIVE, DOWN, INIT... ("4: ACTIVE" without its code)
  std::string phys_state;   // LinkUp, Polling, Disabled...
  std::string link_layer;   // InfiniBand or Ethernet
  std::string rate;         // "400 Gb/sec (4X NDR)"
  double speed_gbps = 0;
  int width = 0;            // lanes: 4 for "4X"
  std::vector<Counter> counters;     // ports/N/counters: the IB PortCounters
  std::vector<Counter> hw_counters;  // ports/N/hw_counters: the driver's own (mlx5)
  std::vector<std::string> unread;   // "counters/: missing", "counters/symbol_error: non-numeric ..."

  std::string component() const { return device + " port " + std::to_string(port); }
};

struct AerCounts {
  std::map<std::string, std::uint64_t> correctable, nonfatal, fatal;  // as the kernel names them
  std::uint64_t total_correctable = 0, total_nonfatal = 0, total_fatal = 0;
};

struct PcieLink {
  std::string address;        // 0000:0c:00.0
  std::string role;           // "GPU" or "NIC mlx5_3"
  std::string current_speed;  // "16.0 GT/s PCIe", as the kernel writes it
  std::string max_speed;
  int current_width = 0;      // lanes
  int max_width = 0;
  std::optional<AerCounts> aer;  // nullopt where the kernel has no aer_dev_* files
  std::vector<std::string> unread;
};

struct NvLink {
  int link = 0;
  bool active = false;
  // NVML_NVLINK_ERROR_DL_*: replay, recovery, CRC of flits and of data, where supported.
  std::optional<std::uint64_t> replay, recovery, crc_flit, crc_data;
};

struct GpuHealth {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  // NVML's "00000000:18:00.0"
  std::optional<unsigned> temperature_c;
  std::optional<std::uint64_t> clock_event_reasons;  // nvmlClocksEventReason* bits
  std::optional<std::uint64_t> pcie_replay;
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile (since the driver loaded)
  std::optional<bool> retired_pages_pending;
  std::optional<bool> remap_pending, remap_failure;
  std::optional<unsigned> pcie_gen, pcie_max_gen, pcie_width, pcie_max_width;
  std::vector<NvLink> nvlinks;
  // The NVLink mode's other half (health/nvlink_mode.hpp): the version of the first active
  // link (nvmlNvlinkVersion_t), the links' common speed in MB/s and the links the device has
  // (NVML's fields 90 and 91); unset where NVML gave none.
  std::optional<unsigned> nvlink_version;
  std::optional<unsigned> nvlink_speed_mbps;
  std::optional<unsigned> nvlink_link_count;
  std::vector<std::string> unread;  // "NVLink: not supported", "ECC: ..."

  std::string component() const { return "GPU " + std::to_string(index); }
  // Whether OTHER, in another snapshot of the node, is this GPU: the same PCI bus id, or, where
  // either has none (NVML gave none: a recording's replay, health/nvml_recording.hpp), the same
  // NVML index, so that two GPUs without one are never taken for each other.
  bool same_gpu(const GpuHealth& other) const {
    return pci_bus_id.empty() || other.pci_bus_id.empty() ? index == other.index : pci_bus_id == other.pci_bus_id;
  }
};

struct XidEvent {
  int gpu = -1;
  std::uint64_t xid = 0;
};

struct Snapshot {
  std::string host;
  std::string label;     // "before", "after", "now"
  double taken_at = 0;   // seconds since the epoch
  std::vector<PortHealth> ports;
  std::vector<PcieLink> pcie;
  std::vector<GpuHealth> gpus;
  std::vector<XidEvent> xids;  // XID events NVML delivered since the previous snapshot
  std::string nvml_note;       // why there are no GPUs ("NVML not loaded: libnvidia-ml.so.1: ...")
  std::vector<std::string> unread;  // what could not be read, component and why
};

// One node's snapshots of a command: before and after a run, or one alone.
struct NodeHealth {
  std::string host;
  std::optional<Snapshot> before;  // absent for a single snapshot
  Snapshot after;                  // or the single one
};

}  // namespace commsweep::health
