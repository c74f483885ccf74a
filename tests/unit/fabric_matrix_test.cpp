// The GPU/NIC matrix read by hwloc from a fixture tree (tests/fixtures/sysfs/ib/hwloc.xml: two
// sockets, a PCIe switch with a GPU and an HCA on each, a second GPU behind another host bridge),
// the far-NIC-first WARN on it, GPUs found by CUDA's form of a PCI address, the matrix in the
// preflight's JSON, and a broken XML named in the error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fabric/locality.hpp"
#include "fabric/preflight.hpp"
#include "fabric/preflight_table.hpp"

namespace commsweep::fabric {
namespace {

const std::string kIbTree = std::string(COMMSWEEP_SYSFS_FIXTURES) + "/ib";

TEST(FabricMatrix, FixtureTreeThroughHwloc) {
  const LocalityMap m = read_locality(kIbTree + "/hwloc.xml");
  EXPECT_EQ(m.numa_nodes, 2);
  ASSERT_EQ(m.gpus.size(), 4u);
  EXPECT_EQ(m.gpus[2].pci, "0000:8d:00.0");
  EXPECT_EQ(m.gpus[2].numa_node, 1);
  EXPECT_EQ(m.gpus[2].cpuset, "4-7");
  std::vector<std::string> nics;
  for (const auto& n : m.nics) nics.push_back(n.name);
  EXPECT_EQ(nics, (std::vector<std::string>{"mlx5_0", "mlx5_1", "ib0", "ib1"}));
  using P = PathType;
  EXPECT_EQ(m.gpu_gpu[0], (std::vector<P>{P::Self, P::NODE, P::SYS, P::SYS}));  // other host bridge, same socket
  EXPECT_EQ(m.gpu_nic[0], (std::vector<P>{P::PXB, P::SYS, P::PXB, P::SYS}));    // below one PCIe switch
  EXPECT_EQ(m.gpu_nic[3], (std::vector<P>{P::SYS, P::NODE, P::SYS, P::NODE}));
  EXPECT_EQ(nearest_nics(m, 1), (std::vector<std::string>{"mlx5_0", "ib0"}));
  const std::string text = render_matrix(m);
  EXPECT_NE(text.find("        GPU0    GPU1    GPU2    GPU3    mlx5_0  mlx5_1  ib0     ib1     NUMA    CPUs\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("GPU2    SYS     SYS     X       NODE    SYS     PXB     SYS     PXB     1       4-7\n"),
            std::string::npos) << text;
}

TEST(FabricMatrix, FarNicFirstWarnsPerGpu) {
  const LocalityMap m = read_locality(kIbTree + "/hwloc.xml");
  const auto warns = check_hca_order(m, parse_hca_list("=mlx5_1,mlx5_0"));
  ASSERT_EQ(warns.size(), 2u);  // GPU0 and GPU1 sit on socket 0, beside mlx5_0
  EXPECT_EQ(warns[0].name, "locality.GPU0");
  EXPECT_EQ(warns[0].reason, "NCCL_IB_HCA lists mlx5_1 first, not one of the NICs nearest GPU0 (mlx5_0,ib0)");
  EXPECT_EQ(warns[1].name, "locality.GPU1");
  EXPECT_EQ(check_hca_order(m, parse_hca_list("mlx5_0")).size(), 2u);  // now GPU2 and GPU3
}

TEST(FabricMatrix, GpusFoundByEitherFormOfPciAddress) {
  const LocalityMap m = read_locality(kIbTree + "/hwloc.xml");
  EXPECT_EQ(find_gpu(m, "00000000:8D:00.0"), 2);  // cudaDeviceGetPCIBusId's form
  EXPECT_EQ(find_gpu(m, "0000:1a:00.0"), 1);      // hwloc's
  EXPECT_EQ(find_gpu(m, "0000:1a:00.1"), -1);
  EXPECT_EQ(find_gpu(m, "-"), -1);
}

TEST(FabricMatrix, PreflightOfTheTreeHoldsTheMatrix) {
  PreflightOptions options;
  options.sysfs_root = kIbTree;
  char* envp[] = {nullptr};
  NodeReport node = check_node(options, envp);
  node.host = "gpu-ib-1";
  node.ranks = 4;
  ASSERT_FALSE(node.locality.is_null());
  EXPECT_EQ(node.locality["gpu_nic"][0][0], "PXB");
  EXPECT_EQ(node.locality["gpus"][0]["nearest_nics"], nlohmann::json({"mlx5_0", "ib0"}));
  EXPECT_EQ(node.locality["matrix"].size(), 6u);  // header, 4 GPUs, legend
  const NodeReport back = node_from_json(nlohmann::json::parse(to_json(node).dump()));
  EXPECT_EQ(back.locality, node.locality);
  const std::string table = render_locality_matrices({back});
  EXPECT_EQ(table.rfind("# GPU/NIC matrix of gpu-ib-1 (hwloc; as nvidia-smi topo -m):\n", 0), 0u) << table;
  // The brief preflight before a sweep leaves the matrix out.
  options.brief = true;
  EXPECT_TRUE(check_node(options, envp).locality.is_null());
}

TEST(FabricMatrix, BrokenXmlIsNamed) {
  const auto path = std::filesystem::temp_directory_path() / "commsweep-broken-hwloc.xml";
  std::ofstream(path) << "<topology version=\"2.0\"><object type=\"Machine\"";
  try {
    read_locality(path.string());
    ADD_FAILURE() << "no error for a broken XML";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace commsweep::fabric
