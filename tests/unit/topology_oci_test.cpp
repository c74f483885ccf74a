// Our generated XML against the files OCI published (../shared/reference/oci-topology): the
// same GPU bus ids, NIC names, NIC bus ids, NUMA nodes and counts. The reference is not part
// of the project: where it is absent the test says so and skips.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "topology/facts.hpp"
#include "topology/generate.hpp"
#include "topology/shape_description.hpp"
#include "topology_fixture.hpp"

namespace commsweep::topology {
namespace {

class OciReference : public ::testing::TestWithParam<const char*> {};

std::map<std::string, int> gpus_by_busid(const TopologyFacts& f) {
  std::map<std::string, int> m;
  for (const auto& g : f.gpus) m[g.busid] = g.numaid;
  return m;
}

std::map<std::string, std::string> nics(const TopologyFacts& f) {
  std::map<std::string, std::string> m;  // name -> "busid numa N port P"
  for (const auto& n : f.nets) m[n.name] = n.busid + " numa " + std::to_string(n.numaid) + " port " + std::to_string(n.port);
  return m;
}

TEST_P(OciReference, SameGpusAndNics) {
  const std::filesystem::path file = std::filesystem::path(COMMSWEEP_OCI_REFERENCE) / (std::string(GetParam()) + ".xml");
  if (!std::filesystem::exists(file)) {
    GTEST_SKIP() << "no OCI reference file at " << file.string()
                 << " (../shared/reference is not part of a clone): comparison skipped";
  }
  const auto theirs = read_topology_facts(parse_xml(commsweep::testing::read_text(file)));
  const auto ours = read_topology_facts(parse_xml(topology_xml(load_shape(GetParam()))));
  ASSERT_TRUE(theirs.problems.empty());
  EXPECT_EQ(ours.gpus.size(), theirs.gpus.size());
  EXPECT_EQ(ours.nets.size(), theirs.nets.size());
  EXPECT_EQ(gpus_by_busid(ours), gpus_by_busid(theirs));
  EXPECT_EQ(nics(ours), nics(theirs));
  EXPECT_EQ(ours.nic_names(), theirs.nic_names());
}

INSTANTIATE_TEST_SUITE_P(Shapes, OciReference, ::testing::Values("BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
}  // namespace commsweep::topology
