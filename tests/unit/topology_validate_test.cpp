// `topo validate` on the checked-in fixture files (good, malformed, a GPU missing, a wrong NIC
// name, a DOCTYPE with an entity) and on fixture sysfs trees (all present, a GPU absent, a NIC
// absent, a port down, a VF with its only port active).
#include <gtest/gtest.h>

#include <string>

#include "topology/shape_description.hpp"
#include "topology/validate.hpp"
#include "topology_fixture.hpp"

namespace commsweep::topology {
namespace {

using commsweep::testing::read_text;
using commsweep::testing::SysfsTree;
using commsweep::testing::TempDir;
using commsweep::testing::topology_fixture;

class TopologyValidate : public ::testing::Test {
 protected:
  ShapeDescription shape_ = load_shape("TEST.GPU.2", COMMSWEEP_TOPOLOGY_FIXTURES);
  TempDir dir_;

  // The node TEST.GPU.2 describes, everything up.
  SysfsTree node() {
    SysfsTree t(dir_.path());
    t.pci("0000:11:00.0").pci("0000:13:00.0").pci("0000:12:00.0").pci("0000:14:00.0");
    t.ib("mlx5_0", 1, "4: ACTIVE").ib("mlx5_1", 1, "4: ACTIVE");
    return t;
  }

  ValidationReport check(const std::string& fixture, bool with_node = false) {
    ValidateOptions o;
    o.shape = &shape_;
    if (with_node) o.sysfs_root = dir_.str();
    return validate_topology(read_text(topology_fixture(fixture)), o);
  }

  static std::string text(const ValidationReport& r) { return format_report("f.xml", r); }
};

TEST_F(TopologyValidate, GoodFileOnItsNode) {
  node();
  const auto r = check("good.xml", true);
  EXPECT_TRUE(r.valid()) << text(r);
  EXPECT_NE(text(r).find("f.xml: valid: 2 GPUs, 2 NICs (2 ports)"), std::string::npos) << text(r);
}

TEST_F(TopologyValidate, MalformedNamesTheLine) {
  const auto r = check("malformed.xml");
  ASSERT_FALSE(r.valid());
  EXPECT_FALSE(r.well_formed);
  EXPECT_EQ(r.problems[0].line, 24);
  EXPECT_NE(text(r).find("f.xml:24: not well-formed XML: </cpu> closes <pci> opened on line 3"), std::string::npos) << text(r);
}

TEST_F(TopologyValidate, MissingGpu) {
  const auto r = check("missing_gpu.xml");
  ASSERT_FALSE(r.valid());
  EXPECT_NE(text(r).find("f.xml: 1 GPUs, TEST.GPU.2 has 2 (missing the shape's 0000:13:00.0)"), std::string::npos) << text(r);
}

TEST_F(TopologyValidate, WrongNicName) {
  const auto r = check("wrong_nic.xml");
  ASSERT_FALSE(r.valid());
  EXPECT_NE(text(r).find("f.xml:21: NIC 'mlx5_7' is not one of TEST.GPU.2's RDMA NICs (mlx5_0,mlx5_1)"), std::string::npos)
      << text(r);
}

TEST_F(TopologyValidate, DoctypeWithEntityRefused) {
  const auto r = check("doctype_entity.xml");
  ASSERT_FALSE(r.valid());
  EXPECT_EQ(r.problems[0].line, 2);
  EXPECT_NE(text(r).find("DOCTYPE refused"), std::string::npos) << text(r);
}

TEST_F(TopologyValidate, StructureProblemsNamed) {
  ValidateOptions o;
  const auto r = validate_topology("<system version=\"1\">\n<cpu numaid=\"0\">\n<gpu dev=\"0\"/>\n<net name=\"x\"/>\n</cpu>\n</system>\n", o);
  EXPECT_NE(text(r).find("f.xml:3: <gpu> outside a <pci>"), std::string::npos) << text(r);
  EXPECT_NE(text(r).find("f.xml:4: <net> outside a <nic>"), std::string::npos) << text(r);
  EXPECT_NE(text(validate_topology("<topology/>", o)).find("NCCL expects <system"), std::string::npos);
}

TEST_F(TopologyValidate, GpuNotOnThisNode) {
  node();
  std::filesystem::remove_all(dir_.path() / "sys/bus/pci/devices/0000:13:00.0");
  const auto r = check("good.xml", true);
  ASSERT_EQ(r.problems.size(), 1u) << text(r);
  EXPECT_NE(r.problems[0].reason.find("GPU 0000:13:00.0 is not on this node"), std::string::npos) << text(r);
  EXPECT_GT(r.problems[0].line, 0);
}

TEST_F(TopologyValidate, NicAbsentOrDown) {
  node().ib("mlx5_1", 1, "1: DOWN");
  std::filesystem::remove_all(dir_.path() / "sys/class/infiniband/mlx5_0");
  const auto r = check("good.xml", true);
  ASSERT_EQ(r.problems.size(), 2u) << text(r);
  EXPECT_NE(text(r).find("NIC 'mlx5_0' is not on this node"), std::string::npos) << text(r);
  EXPECT_NE(text(r).find("NIC mlx5_1 is not active (port 1 '1: DOWN')"), std::string::npos) << text(r);
}

TEST_F(TopologyValidate, VirtualFunctionWithOnlyPortOne) {
  // OCI's files give the second VF of a NIC port="2"; a VF has port 1 only.
  SysfsTree t(dir_.path());
  t.pci("0000:0c:00.0").ib("mlx5_19", 1, "4: ACTIVE");
  ValidateOptions o;
  o.sysfs_root = dir_.str();
  const auto r = validate_topology(
      "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:0c:00.0\"><nic>"
      "<net name=\"mlx5_19\" dev=\"0\" speed=\"1\" port=\"2\"/></nic></pci></cpu></system>", o);
  EXPECT_TRUE(r.valid()) << text(r);
}

}  // namespace
}  // namespace commsweep::topology
