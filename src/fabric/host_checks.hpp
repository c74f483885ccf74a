// Host settings that break RDMA or NCCL quietly: the memlock limit, the IPC_LOCK capability,
// the IOMMU mode, GPUDirect RDMA support (peer memory or dma-buf), gdrcopy, /dev/shm, PCIe ACS. Facts are gathered through a
// root path (HostFacts); the verdicts are pure functions of the facts, so tests build facts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabric/check.hpp"
#include "fabric/sysfs.hpp"

namespace commsweep::fabric {

struct AcsFacts {
  int bridges_read = 0;               // PCI bridges whose extended config space could be read
  std::vector<std::string> redirect;  // bridges with ACS P2P request/completion redirect on
};

struct HostFacts {
  std::optional<std::uint64_t> memlock_bytes;  // nullopt: unlimited
  std::optional<std::uint64_t> cap_eff;        // CapEff from /proc/self/status
  // IOMMU
  int iommu_units = 0;                    // entries in /sys/class/iommu
  std::vector<std::string> group_types;   // distinct /sys/kernel/iommu_groups/*/type values
  std::string cmdline;                    // /proc/cmdline
  // GPUDirect RDMA
  bool nvidia_driver = false;             // the nvidia module is loaded
  bool nvidia_peermem = false;            // nvidia_peermem (or the older nv_peer_mem)
  std::string kernel_release;             // /proc/sys/kernel/osrelease
  std::string nvidia_version_line;        // the first line of /proc/driver/nvidia/version; "" if absent
  // gdrcopy (its kernel module, gdrdrv, maps GPU memory for the CPU)
  bool gdrdrv_module = false;             // /sys/module/gdrdrv (or a /proc/modules line)
  std::optional<int> gdrdrv_major;        // its "gdrdrv" line under "Character devices:" in /proc/devices
  bool gdrdrv_node = false;               // /dev/gdrdrv, the node a container needs
  // /dev/shm
  std::optional<std::uint64_t> shm_bytes;
  AcsFacts acs;
};

HostFacts gather_host_facts(const SysfsRoot& root);
// Only the NVIDIA driver, GPUDirect RDMA and gdrcopy facts (what a run's transport report joins).
void gather_gpudirect_facts(const SysfsRoot& root, HostFacts& facts);
AcsFacts read_acs(const SysfsRoot& root);

// rdma: whether the node has RDMA devices (several checks matter only then).
std::vector<Check> judge_host(const HostFacts& facts, bool rdma);

Check check_memlock(const HostFacts& facts, bool rdma);
Check check_ipc_lock(const HostFacts& facts, bool rdma);
Check check_iommu(const HostFacts& facts, bool rdma);
Check check_gpudirect(const HostFacts& facts, bool rdma);
Check check_gdrcopy(const HostFacts& facts, bool rdma);
Check check_shm(const HostFacts& facts);
Check check_acs(const HostFacts& facts);

// What NCCL needs in /dev/shm (the figure is explained in host_checks.cpp).
constexpr std::uint64_t kShmBytesNeeded = 1ull << 30;
constexpr std::uint64_t kShmDockerDefault = 64ull << 20;
// "5.15.0-91-generic" -> {5, 15}; {0, 0} when unreadable.
std::pair<int, int> kernel_version(const std::string& release);

// The NVIDIA kernel module as its /proc/driver/nvidia/version line names it:
//   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ..." (open)
//   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..." (proprietary)
struct NvidiaModule {
  bool open = false;
  std::string version;  // "550.54.15"
  int branch = 0;       // 550
};
std::optional<NvidiaModule> parse_nvidia_version(const std::string& line);
// The major number of a character device in /proc/devices' text (its "Character devices:" part).
std::optional<int> char_device_major(const std::string& proc_devices, const std::string& name);

// Whether GPUDirect RDMA is possible, and by which path (check_gpudirect's verdict, and what a
// run's NCCL log is compared with: gdr_join.hpp).
enum class GdrPath { NoDriver, PeerMem, DmaBuf, None };
struct GdrReadiness {
  GdrPath path = GdrPath::NoDriver;
  std::string reason;  // "nvidia_peermem loaded", "dma-buf: kernel 6.8.0 >= 5.12 and ...", "neither ..."
  bool possible() const { return path == GdrPath::PeerMem || path == GdrPath::DmaBuf; }
};
GdrReadiness gpudirect_readiness(const HostFacts& facts);
std::string to_string(GdrPath path);   // "no_driver", "peermem", "dmabuf", "none"
GdrPath gdr_path_from_string(const std::string& text);  // throws std::invalid_argument
// Kernel and driver minima of NCCL's dma-buf registration (host_checks.cpp says where from).
constexpr std::pair<int, int> kDmaBufKernel{5, 12};
constexpr int kDmaBufDriverBranch = 515;

}  // namespace commsweep::fabric
