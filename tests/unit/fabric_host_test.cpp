// Host checks on fixture trees and on made-up facts, PCIe ACS parsing of a config space
// written here, and hwloc: binding to NUMA node 0 on this machine, the matrix, HCA order.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "fabric/host_checks.hpp"
#include "fabric/locality.hpp"

namespace commsweep::fabric {
namespace {

namespace fs = std::filesystem;

SysfsRoot host_fixture(const std::string& name) { return SysfsRoot(std::string(COMMSWEEP_SYSFS_FIXTURES) + "/" + name); }

TEST(FabricHost, HealthyInfiniBandNode) {
  const auto facts = gather_host_facts(host_fixture("ib"));
  EXPECT_FALSE(facts.memlock_bytes);
  EXPECT_TRUE(facts.nvidia_peermem);
  EXPECT_EQ(facts.group_types, std::vector<std::string>{"identity"});
  for (const auto& c : judge_host(facts, true))
    EXPECT_EQ(c.status, Status::Pass) << c.name << ": " << c.reason;
}

TEST(FabricHost, BrokenRoceNode) {
  const auto f = gather_host_facts(host_fixture("roce_sriov"));
  EXPECT_EQ(f.memlock_bytes, 65536u);
  EXPECT_EQ(check_memlock(f, true).status, Status::Fail);
  EXPECT_EQ(check_memlock(f, false).status, Status::Warn);
  EXPECT_EQ(check_ipc_lock(f, true).status, Status::Fail);
  const auto iommu = check_iommu(f, true);
  EXPECT_EQ(iommu.status, Status::Fail);
  EXPECT_NE(iommu.fix.find("iommu=pt"), std::string::npos);
  const auto gdr = check_gpudirect(f, true);
  EXPECT_EQ(gdr.status, Status::Warn) << gdr.reason;  // kernel 5.4, no nvidia_peermem
  EXPECT_EQ(check_shm(f).status, Status::Fail);       // 64 MiB, Docker's default
  EXPECT_NE(check_acs(f).reason.find("not visible"), std::string::npos);
}

TEST(FabricHost, FiguresFromFacts) {
  HostFacts f;
  f.nvidia_driver = true;
  f.kernel_release = "6.8.0-49-generic";
  f.nvidia_version_line = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build";
  EXPECT_EQ(check_gpudirect(f, true).status, Status::Pass);
  EXPECT_NE(check_gpudirect(f, true).reason.find("dma-buf"), std::string::npos);
  f.shm_bytes = 512ull << 20;
  EXPECT_EQ(check_shm(f).status, Status::Warn);
  f.shm_bytes = 2ull << 30;
  EXPECT_EQ(check_shm(f).status, Status::Pass);
  f.cap_eff = 1ull << 14;
  EXPECT_EQ(check_ipc_lock(f, true).status, Status::Pass);
  f.cmdline = "quiet iommu=pt";
  EXPECT_EQ(check_iommu(f, true).status, Status::Pass);
  EXPECT_EQ(kernel_version("5.12.0"), std::make_pair(5, 12));
  EXPECT_EQ(kernel_version("garbage"), std::make_pair(0, 0));
}

// GPUDirect RDMA readiness and gdrcopy on the gdr_* trees (tests/fixtures/sysfs): each holds one
// active IB HCA, the modules as /sys/module/<name>/initstate and /proc/modules show them, the
// driver's /proc/driver/nvidia/version and the kernel's /proc/devices.
TEST(FabricHostGpuDirect, PeermemPresentAndGdrcopyReady) {
  const auto f = gather_host_facts(host_fixture("gdr_peermem"));
  EXPECT_TRUE(f.nvidia_peermem);
  EXPECT_TRUE(f.gdrdrv_module);
  EXPECT_EQ(f.gdrdrv_major, 235);
  EXPECT_TRUE(f.gdrdrv_node);
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::PeerMem);
  EXPECT_EQ(check_gpudirect(f, true).status, Status::Pass);
  const auto gdrcopy = check_gdrcopy(f, true);
  EXPECT_EQ(gdrcopy.status, Status::Pass) << gdrcopy.reason;
  EXPECT_NE(gdrcopy.reason.find("character device 235"), std::string::npos) << gdrcopy.reason;
}

TEST(FabricHostGpuDirect, PeermemAbsentOnOldKernelAndProprietaryDriver) {
  const auto f = gather_host_facts(host_fixture("gdr_absent"));
  EXPECT_TRUE(f.nvidia_driver);
  EXPECT_FALSE(f.nvidia_peermem);
  EXPECT_FALSE(f.gdrdrv_module);
  EXPECT_FALSE(f.gdrdrv_major);
  EXPECT_FALSE(f.gdrdrv_node);
  const auto ready = gpudirect_readiness(f);
  EXPECT_EQ(ready.path, GdrPath::None);
  EXPECT_NE(ready.reason.find("kernel 5.4.0-150-generic < 5.12"), std::string::npos) << ready.reason;
  EXPECT_NE(ready.reason.find("proprietary kernel module 535.129.03"), std::string::npos) << ready.reason;
  const auto gdr = check_gpudirect(f, true);
  EXPECT_EQ(gdr.status, Status::Warn);
  EXPECT_NE(gdr.fix.find("modprobe nvidia_peermem"), std::string::npos);
  EXPECT_NE(gdr.fix.find("driver.rdma.enabled=true"), std::string::npos);
  EXPECT_NE(gdr.fix.find("open kernel module"), std::string::npos);
  EXPECT_EQ(check_gpudirect(f, false).status, Status::Pass);  // no RDMA devices: not needed
  const auto gdrcopy = check_gdrcopy(f, true);
  EXPECT_EQ(gdrcopy.status, Status::Warn);
  EXPECT_NE(gdrcopy.reason.find("no gdrdrv module"), std::string::npos);
  EXPECT_NE(gdrcopy.fix.find("gdrcopy.enabled=true"), std::string::npos);
  EXPECT_EQ(check_gdrcopy(f, false).status, Status::Pass);
}

TEST(FabricHostGpuDirect, DmaBufWithTheOpenModuleAndGdrdrvWithoutItsNode) {
  const auto f = gather_host_facts(host_fixture("gdr_dmabuf"));
  EXPECT_FALSE(f.nvidia_peermem);
  const auto ready = gpudirect_readiness(f);
  EXPECT_EQ(ready.path, GdrPath::DmaBuf);
  EXPECT_EQ(ready.reason, "dma-buf: kernel 6.8.0-49-generic >= 5.12 and the NVIDIA open kernel module 550.54.15 (>= 515)");
  EXPECT_EQ(check_gpudirect(f, true).status, Status::Pass);
  EXPECT_TRUE(f.gdrdrv_module);
  EXPECT_EQ(f.gdrdrv_major, 235);
  EXPECT_FALSE(f.gdrdrv_node);  // the host has it, the container was not given /dev/gdrdrv
  const auto gdrcopy = check_gdrcopy(f, true);
  EXPECT_EQ(gdrcopy.status, Status::Warn);
  EXPECT_NE(gdrcopy.reason.find("no /dev/gdrdrv here"), std::string::npos) << gdrcopy.reason;
}

TEST(FabricHostGpuDirect, DmaBufNeedsTheOpenModuleFrom515AndKernel512) {
  HostFacts f;
  f.nvidia_driver = true;
  f.kernel_release = "6.8.0-49-generic";
  const std::string open_550 = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  "
                               "(dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024";
  f.nvidia_version_line = open_550;
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::DmaBuf);
  f.nvidia_version_line = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  510.47.03  Release Build";
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::None);
  EXPECT_NE(gpudirect_readiness(f).reason.find("open kernel module 510.47.03 < 515"), std::string::npos);
  f.nvidia_version_line = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024";
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::None);  // proprietary: peer memory only
  f.nvidia_version_line = "";
  EXPECT_NE(gpudirect_readiness(f).reason.find("no /proc/driver/nvidia/version"), std::string::npos);
  f.nvidia_version_line = open_550;
  f.kernel_release = "5.11.0-27-generic";
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::None);
  f.nvidia_peermem = true;  // peer memory needs neither
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::PeerMem);
  f.nvidia_driver = false;
  EXPECT_EQ(gpudirect_readiness(f).path, GdrPath::NoDriver);
  EXPECT_EQ(check_gdrcopy(f, true).status, Status::Pass);  // not applicable without the driver
  for (GdrPath p : {GdrPath::NoDriver, GdrPath::PeerMem, GdrPath::DmaBuf, GdrPath::None})
    EXPECT_EQ(gdr_path_from_string(to_string(p)), p);
  EXPECT_THROW(gdr_path_from_string("maybe"), std::invalid_argument);
}

TEST(FabricHostGpuDirect, KernelAndDriverFormats) {
  const auto open = parse_nvidia_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58.02  Release Build  (dvs-builder@U16-I3-B03-4-3)");
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->open);
  EXPECT_EQ(open->version, "555.58.02");
  EXPECT_EQ(open->branch, 555);
  const auto proprietary = parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023");
  ASSERT_TRUE(proprietary);
  EXPECT_FALSE(proprietary->open);
  EXPECT_EQ(proprietary->branch, 535);
  EXPECT_FALSE(parse_nvidia_version("GCC version:  gcc version 11.4.0"));
  EXPECT_FALSE(parse_nvidia_version(""));
  // A block device of the name does not count: only the "Character devices:" part.
  const std::string devices = "Character devices:\n  1 mem\n235 gdrdrv\n510 nvidia-nvlink\n\nBlock devices:\n  7 loop\n259 gdrblk\n";
  EXPECT_EQ(char_device_major(devices, "gdrdrv"), 235);
  EXPECT_EQ(char_device_major(devices, "nvidia-nvlink"), 510);
  EXPECT_FALSE(char_device_major(devices, "loop"));
  EXPECT_FALSE(char_device_major("", "gdrdrv"));
}

// A bridge's config space: 4 KiB, an AER capability at 0x100 pointing to ACS at 0x140.
void write_bridge(const fs::path& dir, std::uint16_t acs_control) {
  fs::create_directories(dir);
  std::ofstream(dir / "class") << "0x060400\n";
  std::string config(4096, '\0');
  auto put32 = [&](size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) config[at + i] = static_cast<char>(v >> (8 * i) & 0xff);
  };
  put32(0x100, 0x0001u | 1u << 16 | 0x140u << 20);  // AER, next 0x140
  put32(0x140, 0x000du | 1u << 16);                 // ACS, last
  put32(0x144, static_cast<std::uint32_t>(acs_control) << 16 | 0x005f);
  std::ofstream(dir / "config", std::ios::binary) << config;
}

TEST(FabricHost, AcsRedirectFromConfigSpace) {
  const fs::path root = fs::temp_directory_path() / ("commsweep-acs-" + std::to_string(::getpid()));
  fs::remove_all(root);
  write_bridge(root / "sys/bus/pci/devices/0000:15:01.0", 0x001d);  // SV, RR, CR, UF on
  write_bridge(root / "sys/bus/pci/devices/0000:15:02.0", 0x0000);
  const auto acs = read_acs(SysfsRoot(root.string()));
  fs::remove_all(root);
  EXPECT_EQ(acs.bridges_read, 2);
  EXPECT_EQ(acs.redirect, std::vector<std::string>{"0000:15:01.0"});
  HostFacts f;
  f.acs = acs;
  EXPECT_EQ(check_acs(f).status, Status::Warn);
}

TEST(FabricLocality, BindsToNumaNodeZero) {
  const std::string before = current_cpu_binding();
  const std::string bound = bind_to_numa_node(0);
  EXPECT_FALSE(bound.empty());
  EXPECT_EQ(current_cpu_binding(), bound);
  EXPECT_THROW(bind_to_numa_node(4095), std::runtime_error);
  std::cout << "bound to NUMA node 0: CPUs " << bound << " (before: " << before << ")\n";
}

TEST(FabricLocality, LiveMachineReads) {
  const LocalityMap map = read_locality();
  EXPECT_GE(map.numa_nodes, 1);
  EXPECT_EQ(map.gpu_nic.size(), map.gpus.size());
  const auto rows = describe_locality(map);
  EXPECT_FALSE(rows.empty());
  for (const auto& r : rows) std::cout << r.name << ": " << r.reason << "\n";
}

LocalityMap two_gpus_two_nics() {
  LocalityMap m;
  m.gpus = {{"GPU0", "0000:18:00.0", 0, "0-11"}, {"GPU1", "0000:9a:00.0", 1, "12-23"}};
  m.nics = {{"mlx5_0", "0000:19:00.0", 0, "0-11"}, {"mlx5_1", "0000:9b:00.0", 1, "12-23"}};
  using P = PathType;
  m.gpu_gpu = {{P::Self, P::SYS}, {P::SYS, P::Self}};
  m.gpu_nic = {{P::PIX, P::SYS}, {P::SYS, P::PXB}};
  return m;
}

TEST(FabricLocality, MatrixAndNearest) {
  const auto m = two_gpus_two_nics();
  EXPECT_EQ(nearest_nics(m, 0), std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(nearest_nics(m, 1), std::vector<std::string>{"mlx5_1"});
  const std::string text = render_matrix(m);
  EXPECT_NE(text.find("GPU0    X       SYS     PIX     SYS     0       0-11\n"), std::string::npos) << text;
}

TEST(FabricLocality, FarNicFirstWarns) {
  const auto m = two_gpus_two_nics();
  const auto warns = check_hca_order(m, parse_hca_list("=mlx5_1,mlx5_0"));
  ASSERT_EQ(warns.size(), 1u);  // GPU0's nearest is mlx5_0; GPU1 is fine
  EXPECT_EQ(warns[0].name, "locality.GPU0");
  EXPECT_EQ(warns[0].status, Status::Warn);
  EXPECT_TRUE(check_hca_order(m, parse_hca_list("^mlx5_1")).empty());
}

}  // namespace
}  // namespace commsweep::fabric
