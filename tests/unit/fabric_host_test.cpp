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
