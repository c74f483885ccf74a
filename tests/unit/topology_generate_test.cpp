// The generator: every built-in shape's XML reads back with the description's GPUs and NICs,
// the checked-in topology/<shape>.xml and .conf are what the generator writes today, and the
// nccl.conf holds the exact HCA list with a reason for every value.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "topology/facts.hpp"
#include "topology/generate.hpp"
#include "topology/shape_description.hpp"
#include "topology/validate.hpp"
#include "topology_fixture.hpp"

namespace commsweep::topology {
namespace {

using commsweep::testing::read_text;
using commsweep::testing::topology_fixture;

TEST(TopologyGenerate, EveryShapeIsBuiltIn) {
  const auto list = builtin_shape_names();
  const std::set<std::string> names(list.begin(), list.end());
  for (const char* s : {"BM.GPU.H100.8", "BM.GPU.H200.8", "BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.B4.8"}) {
    EXPECT_EQ(names.count(s), 1u) << s;
  }
}

TEST(TopologyGenerate, RoundTripKeepsGpusAndNics) {
  for (const auto& shape : load_all_shapes()) {
    SCOPED_TRACE(shape.shape);
    const auto facts = read_topology_facts(parse_xml(topology_xml(shape)));
    EXPECT_TRUE(facts.problems.empty());
    ASSERT_EQ(static_cast<int>(facts.gpus.size()), shape.gpu.count);
    std::vector<std::string> busids;
    for (const auto& g : facts.gpus) busids.push_back(g.busid);
    EXPECT_EQ(busids, shape.gpu_busids());
    EXPECT_EQ(facts.nic_names(), shape.nic_names());
    EXPECT_EQ(static_cast<int>(facts.nets.size()), shape.net_count());
    EXPECT_EQ(shape.net_count(), shape.rdma.count);
    // A shape's own file passes the shape checks.
    ValidateOptions options;
    options.shape = &shape;
    EXPECT_TRUE(validate_topology(topology_xml(shape), options).valid());
  }
}

TEST(TopologyGenerate, CheckedInFilesAreUpToDate) {
  for (const auto& shape : load_all_shapes()) {
    SCOPED_TRACE(shape.shape);
    const std::filesystem::path dir = COMMSWEEP_TOPOLOGY_DIR;
    EXPECT_EQ(read_text(dir / (shape.shape + ".xml")), topology_xml(shape))
        << "topology/" << shape.shape << ".xml is stale: run build/commsweep topo generate";
    EXPECT_EQ(read_text(dir / (shape.shape + ".conf")), nccl_conf(shape, default_topology_path(shape.shape)))
        << "topology/" << shape.shape << ".conf is stale: run build/commsweep topo generate";
    // The built-in description is the checked-in one.
    EXPECT_EQ(load_shape(shape.shape, (dir / "shapes").string()).summary, shape.summary);
  }
}

TEST(TopologyGenerate, MatchesTheFixtureFile) {
  const auto shape = load_shape("TEST.GPU.2", COMMSWEEP_TOPOLOGY_FIXTURES);
  EXPECT_EQ(topology_xml(shape), read_text(topology_fixture("good.xml")));
}

TEST(TopologyGenerate, NcclConfHasExactHcaListAndReasons) {
  const auto shape = load_shape("BM.GPU.H100.8");
  const std::string conf = nccl_conf(shape, default_topology_path(shape.shape));
  EXPECT_NE(conf.find("\nNCCL_IB_HCA==mlx5_18,mlx5_19,mlx5_26,mlx5_27,mlx5_28,mlx5_29,mlx5_30,mlx5_31,"
                      "mlx5_32,mlx5_33,mlx5_20,mlx5_21,mlx5_22,mlx5_23,mlx5_24,mlx5_25\n"),
            std::string::npos)
      << conf;
  EXPECT_NE(conf.find("\nNCCL_TOPO_FILE=/etc/commsweep/topology/BM.GPU.H100.8.xml\n"), std::string::npos);
  // Every KEY=value line follows a comment line.
  std::istringstream in(conf);
  std::string line, previous;
  int settings = 0;
  while (std::getline(in, line)) {
    if (line.rfind("NCCL_", 0) == 0) {
      ++settings;
      EXPECT_EQ(previous.rfind("# ", 0), 0u) << "no reason above " << line;
    }
    previous = line;
  }
  EXPECT_GE(settings, 8);
  for (const char* key : {"NCCL_IB_GID_INDEX=", "NCCL_IB_TC=", "NCCL_IB_QPS_PER_CONNECTION=", "NCCL_IB_TIMEOUT=",
                          "NCCL_IB_SPLIT_DATA_ON_QPS=", "NCCL_CROSS_NIC=", "NCCL_SOCKET_IFNAME="}) {
    EXPECT_NE(conf.find(std::string("\n") + key), std::string::npos) << key;
  }
}

TEST(TopologyGenerate, BadDescriptionsNameFileAndKey) {
  const std::string good = read_text(topology_fixture("TEST.GPU.2.json"));
  auto error_of = [](const std::string& text) {
    try {
      parse_shape_description(text, "x.json");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of(good), "accepted");
  EXPECT_NE(error_of("{").find("x.json: not valid JSON"), std::string::npos);
  std::string bad = good;
  bad.replace(bad.find("\"count\": 2"), 10, "\"count\": 3");
  EXPECT_NE(error_of(bad).find("2 GPUs in the PCI tree, gpu.count says 3"), std::string::npos) << error_of(bad);
  bad = good;
  bad.replace(bad.find("0000:13:00.0"), 12, "0000:11:00.0");
  EXPECT_NE(error_of(bad).find("bus id appears twice"), std::string::npos) << error_of(bad);
  bad = good;
  bad.replace(bad.find("\"t\": \"gpu\""), 10, "\"t\": \"gpx\"");
  EXPECT_NE(error_of(bad).find("unknown PCI template 'gpx'"), std::string::npos) << error_of(bad);
}

}  // namespace
}  // namespace commsweep::topology
