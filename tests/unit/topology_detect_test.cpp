// detect_shape: --shape, then COMMSWEEP_SHAPE, then the instance-type label, then a guess from
// the GPUs (and NICs), labelled as a guess; and check_topology_for_run's verdicts.
#include <gtest/gtest.h>

#include <string>

#include "topology/generate.hpp"
#include "topology/run_check.hpp"
#include "topology/shape_detect.hpp"
#include "topology_fixture.hpp"

namespace commsweep::topology {
namespace {

using commsweep::testing::SysfsTree;
using commsweep::testing::TempDir;
using commsweep::testing::write_text;

class ShapeDetect : public ::testing::Test {
 protected:
  std::vector<ShapeDescription> shapes_ = load_all_shapes();
  TempDir dir_;
  std::string labels(const std::string& text) {
    write_text(dir_.path() / "labels", text);
    return (dir_.path() / "labels").string();
  }
};

TEST_F(ShapeDetect, SourcesInOrder) {
  ShapeEvidence e;
  e.flag = "BM.GPU.H100.8";
  e.env = "BM.GPU.H200.8";
  e.labels_file = labels("app=\"x\"\nnode.kubernetes.io/instance-type=\"BM.GPU4.8\"\n");
  e.gpus = {{"NVIDIA B200", 8}};
  auto d = detect_shape(e, shapes_);
  EXPECT_EQ(d.shape, "BM.GPU.H100.8");
  EXPECT_EQ(d.source, ShapeSource::Flag);
  e.flag.clear();
  d = detect_shape(e, shapes_);
  EXPECT_EQ(d.shape, "BM.GPU.H200.8");
  EXPECT_EQ(d.source, ShapeSource::Env);
  e.env.clear();
  d = detect_shape(e, shapes_);
  EXPECT_EQ(d.shape, "BM.GPU4.8");
  EXPECT_EQ(d.source, ShapeSource::Label);
  EXPECT_NE(d.reason.find("labels"), std::string::npos);
  e.labels_file = (dir_.path() / "absent").string();
  d = detect_shape(e, shapes_);
  EXPECT_EQ(d.shape, "BM.GPU.B4.8");
  EXPECT_EQ(d.source, ShapeSource::Guess);
  EXPECT_NE(d.reason.find("a guess from 8 x NVIDIA B200"), std::string::npos) << d.reason;
}

TEST_F(ShapeDetect, LabelForms) {
  EXPECT_EQ(instance_type_label(labels("beta.kubernetes.io/instance-type=\"BM.GPU.A100-v2.8\"\n")), "BM.GPU.A100-v2.8");
  EXPECT_EQ(instance_type_label(labels("beta.kubernetes.io/instance-type=\"A\"\nnode.kubernetes.io/instance-type=\"B\"\n")), "B");
  EXPECT_EQ(instance_type_label(labels("node.kubernetes.io/instance-type=\"B\"\ncommsweep/shape=\"C\"\n")), "C");
  EXPECT_EQ(instance_type_label(labels("app=\"x\"\n")), "");
  EXPECT_EQ(instance_type_label(""), "");
}

TEST_F(ShapeDetect, GuessesByModelCountAndNics) {
  ShapeEvidence e;
  e.gpus = {{"NVIDIA A100-SXM4-80GB", 8}};
  EXPECT_EQ(detect_shape(e, shapes_).shape, "BM.GPU.A100-v2.8");
  e.gpus = {{"NVIDIA A100-SXM4-40GB", 8}};
  EXPECT_EQ(detect_shape(e, shapes_).shape, "BM.GPU4.8");
  e.gpus = {{"NVIDIA H100 80GB HBM3", 8}};
  EXPECT_EQ(detect_shape(e, shapes_).shape, "BM.GPU.H100.8");
  e.gpus = {{"NVIDIA H100 80GB HBM3", 4}};
  auto d = detect_shape(e, shapes_);
  EXPECT_FALSE(d.known());
  EXPECT_NE(d.reason.find("matches no known shape"), std::string::npos) << d.reason;
  e.gpus = {};
  EXPECT_FALSE(detect_shape(e, shapes_).known());
}

TEST_F(ShapeDetect, NicsSettleATie) {
  // Two made-up shapes with the same GPUs differ only in their NICs.
  auto a = load_shape("TEST.GPU.2", COMMSWEEP_TOPOLOGY_FIXTURES);
  auto b = a;
  b.shape = "TEST.GPU.2b";
  b.numa_nodes[0].pci[0].children[1].nets[0].name = "mlx5_8";
  b.numa_nodes[0].pci[0].children[3].nets[0].name = "mlx5_9";
  ShapeEvidence e;
  e.gpus = {{"TESTGPU", 2}};
  auto d = detect_shape(e, {a, b});
  EXPECT_FALSE(d.known());
  EXPECT_NE(d.reason.find("fits several shapes (TEST.GPU.2, TEST.GPU.2b)"), std::string::npos) << d.reason;
  e.rdma_nics = {"mlx5_8", "mlx5_9", "mlx5_10"};
  d = detect_shape(e, {a, b});
  EXPECT_EQ(d.shape, "TEST.GPU.2b");
  EXPECT_EQ(d.source, ShapeSource::Guess);
}

class RunCheck : public ::testing::Test {
 protected:
  ShapeDescription shape_ = load_shape("TEST.GPU.2", COMMSWEEP_TOPOLOGY_FIXTURES);
  TempDir dir_;
  TopologyRunInput input() {
    SysfsTree t(dir_.path() / "root");
    t.pci("0000:11:00.0").pci("0000:13:00.0").pci("0000:12:00.0").pci("0000:14:00.0");
    t.ib("mlx5_0", 1, "4: ACTIVE").ib("mlx5_1", 1, "4: ACTIVE");
    write_text(dir_.path() / "mount/TEST.GPU.2.xml", topology_xml(shape_));
    TopologyRunInput in;
    in.shape = "TEST.GPU.2";
    in.mount_dir = (dir_.path() / "mount").string();
    in.sysfs_root = t.root();
    in.description = &shape_;
    return in;
  }
};

TEST_F(RunCheck, MountedFileThatMatchesIsUsed) {
  const auto c = check_topology_for_run(input());
  EXPECT_EQ(c.verdict, TopologyVerdict::Use) << c.message;
  EXPECT_TRUE(c.set_env);
  EXPECT_EQ(c.file, (dir_.path() / "mount/TEST.GPU.2.xml").string());
  EXPECT_NE(c.message.find("the ConfigMap mount"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("2 GPUs and 2 NICs, all present"), std::string::npos) << c.message;
}

TEST_F(RunCheck, UsersFileIsKeptAndChecked) {
  auto in = input();
  in.user_topo_file = (dir_.path() / "mine.xml").string();
  write_text(in.user_topo_file, topology_xml(shape_));
  auto c = check_topology_for_run(in);
  EXPECT_EQ(c.verdict, TopologyVerdict::Use);
  EXPECT_FALSE(c.set_env);
  EXPECT_NE(c.message.find("as set by the user"), std::string::npos) << c.message;
  std::filesystem::remove(in.user_topo_file);
  c = check_topology_for_run(in);
  EXPECT_EQ(c.verdict, TopologyVerdict::Refuse);
  EXPECT_NE(c.message.find("does not exist"), std::string::npos) << c.message;
}

TEST_F(RunCheck, NoMountedFileLeavesNcclToItself) {
  auto in = input();
  in.mount_dir = (dir_.path() / "nowhere").string();
  const auto c = check_topology_for_run(in);
  EXPECT_EQ(c.verdict, TopologyVerdict::Skip);
  EXPECT_NE(c.message.find("NCCL detects the topology itself"), std::string::npos) << c.message;
}

TEST_F(RunCheck, MismatchRefusedUnlessForced) {
  auto in = input();
  std::filesystem::remove_all(std::filesystem::path(in.sysfs_root) / "sys/class/infiniband/mlx5_1");
  auto c = check_topology_for_run(in);
  EXPECT_EQ(c.verdict, TopologyVerdict::Refuse);
  EXPECT_NE(c.message.find("does not match this node"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("NIC 'mlx5_1' is not on this node"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("--force"), std::string::npos) << c.message;
  in.force = true;
  c = check_topology_for_run(in);
  EXPECT_EQ(c.verdict, TopologyVerdict::Use);
  EXPECT_TRUE(c.set_env);
  EXPECT_NE(c.message.find("despite --force"), std::string::npos) << c.message;
}

}  // namespace
}  // namespace commsweep::topology
