// The sysfs RDMA inventory on fixture trees (tests/fixtures/sysfs): an InfiniBand node with a
// port down, and a RoCE node whose pod was given two SR-IOV VFs.
#include <gtest/gtest.h>

#include "fabric/rdma_inventory.hpp"

namespace commsweep::fabric {
namespace {

SysfsRoot inventory_fixture(const std::string& name) { return SysfsRoot(std::string(COMMSWEEP_SYSFS_FIXTURES) + "/" + name); }

const RdmaDevice& device(const RdmaInventory& inv, const std::string& name) {
  for (const auto& d : inv.devices)
    if (d.name == name) return d;
  throw std::runtime_error("no device " + name);
}

TEST(FabricInventory, InfiniBandPortsFromSysfs) {
  const auto inv = read_rdma_inventory(inventory_fixture("ib"));
  ASSERT_EQ(inv.devices.size(), 2u);
  const auto& d = device(inv, "mlx5_0");
  EXPECT_EQ(d.pci_address, "0000:0c:00.0");
  EXPECT_EQ(d.numa_node, 0);
  EXPECT_EQ(d.fw_ver, "28.39.1002");
  EXPECT_EQ(d.node_guid, "0c42:a103:00b1:c2d0");
  EXPECT_FALSE(d.virtual_function);
  ASSERT_EQ(d.ports.size(), 1u);
  const auto& p = d.ports[0];
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.phys_state, "LinkUp");
  EXPECT_FALSE(p.roce());
  EXPECT_DOUBLE_EQ(p.speed_gbps, 200);
  EXPECT_EQ(p.width, 4);
  EXPECT_EQ(p.netdev, "ib0");
  EXPECT_EQ(p.active_mtu, 0);  // sysfs does not show an IB port's MTU; verbs does
  ASSERT_EQ(p.gids.size(), 1u);  // the all-zero slot is skipped
  EXPECT_EQ(p.gids[0].type, GidType::IB);
  EXPECT_FALSE(nccl_gid_index(p));
  const auto& down = device(inv, "mlx5_1").ports[0];
  EXPECT_EQ(down.state, "DOWN");
  EXPECT_EQ(down.phys_state, "Disabled");
  EXPECT_EQ(device(inv, "mlx5_1").numa_node, 1);
}

TEST(FabricInventory, RoceGidsAndVirtualFunctions) {
  const auto inv = read_rdma_inventory(inventory_fixture("roce_sriov"));
  ASSERT_EQ(inv.devices.size(), 3u);
  const auto& pf = device(inv, "mlx5_0");
  EXPECT_FALSE(pf.virtual_function);
  EXPECT_EQ(pf.sriov_numvfs, 2);
  const auto& vf = device(inv, "mlx5_2");
  EXPECT_TRUE(vf.virtual_function);
  EXPECT_EQ(vf.physfn, "0000:18:00.0");
  EXPECT_EQ(vf.pci_address, "0000:18:00.2");
  const auto& p = vf.ports[0];
  EXPECT_TRUE(p.roce());
  EXPECT_EQ(p.netdev, "net1");
  EXPECT_EQ(p.active_mtu, 4096);  // netdev MTU 9000
  ASSERT_EQ(p.gids.size(), 4u);
  EXPECT_EQ(p.gids[0].type, GidType::RoCEv1);
  EXPECT_EQ(p.gids[1].type, GidType::RoCEv2);
  EXPECT_FALSE(p.gids[1].ipv4);
  EXPECT_EQ(p.gids[2].type, GidType::RoCEv1);
  EXPECT_TRUE(p.gids[2].ipv4);
  EXPECT_EQ(p.gids[3].type, GidType::RoCEv2);
  EXPECT_TRUE(p.gids[3].ipv4);
  EXPECT_EQ(nccl_gid_index(p), 3);
  // The PF has no IPv4 address: NCCL would take the RoCE v2 GID, which is link-local here.
  EXPECT_FALSE(nccl_gid_index(pf.ports[0]));
}

TEST(FabricInventory, AbsentTreeHasNoDevices) {
  const auto inv = read_rdma_inventory(SysfsRoot("/nonexistent-commsweep-root"));
  EXPECT_TRUE(inv.devices.empty());
  EXPECT_EQ(inv.looked_in, "/nonexistent-commsweep-root/sys/class/infiniband");
}

TEST(FabricInventory, RateAndMtu) {
  double gbps = 0;
  int width = 0;
  parse_rate("400 Gb/sec (4X NDR)", &gbps, &width);
  EXPECT_DOUBLE_EQ(gbps, 400);
  EXPECT_EQ(width, 4);
  parse_rate("", &gbps, &width);
  EXPECT_EQ(gbps, 0);
  EXPECT_EQ(roce_active_mtu(9000), 4096);
  EXPECT_EQ(roce_active_mtu(4200), 4096);
  EXPECT_EQ(roce_active_mtu(1500), 1024);
  EXPECT_EQ(roce_active_mtu(100), 0);
}

}  // namespace
}  // namespace commsweep::fabric
