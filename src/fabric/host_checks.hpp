// Host settings that break RDMA or NCCL quietly: the memlock limit, the IPC_LOCK capability,
// the IOMMU mode, GPUDirect RDMA support, /dev/shm, PCIe ACS. Facts are gathered through a
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
  // /dev/shm
  std::optional<std::uint64_t> shm_bytes;
  AcsFacts acs;
};

HostFacts gather_host_facts(const SysfsRoot& root);
AcsFacts read_acs(const SysfsRoot& root);

// rdma: whether the node has RDMA devices (several checks matter only then).
std::vector<Check> judge_host(const HostFacts& facts, bool rdma);

Check check_memlock(const HostFacts& facts, bool rdma);
Check check_ipc_lock(const HostFacts& facts, bool rdma);
Check check_iommu(const HostFacts& facts, bool rdma);
Check check_gpudirect(const HostFacts& facts, bool rdma);
Check check_shm(const HostFacts& facts);
Check check_acs(const HostFacts& facts);

// What NCCL needs in /dev/shm (the figure is explained in host_checks.cpp).
constexpr std::uint64_t kShmBytesNeeded = 1ull << 30;
constexpr std::uint64_t kShmDockerDefault = 64ull << 20;
// "5.15.0-91-generic" -> {5, 15}; {0, 0} when unreadable.
std::pair<int, int> kernel_version(const std::string& release);

}  // namespace commsweep::fabric
