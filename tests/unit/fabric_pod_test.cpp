// SR-IOV autodetect: PCIDEVICE_* variables in their forms, Multus network-status, the mapping
// to RDMA devices of a fixture tree, and the export lines of `commsweep env`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fabric/nccl_env.hpp"
#include "fabric/pod_devices.hpp"

namespace commsweep::fabric {
namespace {

SysfsRoot roce() { return SysfsRoot(std::string(COMMSWEEP_SYSFS_FIXTURES) + "/roce_sriov"); }

std::vector<std::string> addresses(const std::vector<PodPci>& pcis) {
  std::vector<std::string> out;
  for (const auto& p : pcis) out.push_back(p.pci_address);
  return out;
}

TEST(FabricPod, CommaSeparatedForm) {
  const auto p = parse_pcidevice("PCIDEVICE_NVIDIA_COM_SRIOV_RDMA", "0000:18:00.2, 0000:18:00.3,0000:18:00.2");
  EXPECT_EQ(addresses(p), (std::vector<std::string>{"0000:18:00.2", "0000:18:00.3"}));
  EXPECT_EQ(p[0].origin, "PCIDEVICE_NVIDIA_COM_SRIOV_RDMA");
  EXPECT_EQ(addresses(parse_pcidevice("PCIDEVICE_X", "18:00.2")), std::vector<std::string>{"0000:18:00.2"});
  EXPECT_TRUE(parse_pcidevice("PCIDEVICE_X", "  ").empty());
}

TEST(FabricPod, JsonForms) {
  // The device plugin's per-device info: PCI addresses as keys.
  const auto a = parse_pcidevice("PCIDEVICE_OPENSHIFT_IO_MLX_INFO",
      R"({"0000:18:00.2":{"generic":{"deviceID":"0000:18:00.2"},"rdma":{"rdma_mgmt":"/dev/infiniband/rdma_cm"}},)"
      R"("0000:18:00.3":{"generic":{"deviceID":"0000:18:00.3"}}})");
  EXPECT_EQ(addresses(a), (std::vector<std::string>{"0000:18:00.2", "0000:18:00.3"}));
  // Objects with "pci" keys.
  const auto b = parse_pcidevice("PCIDEVICE_X_INFO", R"([{"pci":"0000:AF:00.1","rdma":"mlx5_9"}])");
  EXPECT_EQ(addresses(b), std::vector<std::string>{"0000:af:00.1"});
}

TEST(FabricPod, BadValuesNameTheVariable) {
  try {
    parse_pcidevice("PCIDEVICE_BAD", "0000:18:00.2,eth0");
    FAIL() << "no error";
  } catch (const PodDeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("PCIDEVICE_BAD"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'eth0'"), std::string::npos);
  }
  EXPECT_THROW(parse_pcidevice("PCIDEVICE_BAD", "{\"0000:18:00.2\":"), PodDeviceError);
  EXPECT_THROW(parse_pcidevice("PCIDEVICE_BAD", "{\"a\":1}"), PodDeviceError);
}

TEST(FabricPod, EnvironmentVariablesSorted) {
  std::vector<std::string> env = {"PATH=/bin", "PCIDEVICE_B=0000:18:00.3", "PCIDEVICE_A=0000:18:00.2",
                                  "PCIDEVICE_C=0000:18:00.2"};
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const auto p = pcidevices_from_environment(envp.data());
  EXPECT_EQ(addresses(p), (std::vector<std::string>{"0000:18:00.2", "0000:18:00.3"}));
  EXPECT_EQ(p[0].origin, "PCIDEVICE_A");
}

TEST(FabricPod, NetworkStatusAnnotationFile) {
  std::ifstream in(roce().path("/etc/podinfo/annotations"));
  std::stringstream text;
  text << in.rdbuf();
  std::string iface;
  const auto p = parse_network_status_file(text.str(), &iface);
  EXPECT_EQ(addresses(p), (std::vector<std::string>{"0000:18:00.2", "0000:18:00.3"}));
  EXPECT_EQ(p[1].interface, "net2");
  EXPECT_EQ(iface, "eth0");
  EXPECT_THROW(parse_network_status("{}", &iface), PodDeviceError);
  EXPECT_THROW(parse_network_status_file("k8s.v1.cni.cncf.io/network-status=\"[\\q]\"", &iface), PodDeviceError);
  EXPECT_TRUE(parse_network_status_file("other=\"x\"\n", &iface).empty());
}

TEST(FabricPod, MapsVirtualFunctionsToRdmaDevices) {
  const auto inv = read_rdma_inventory(roce());
  const auto mapping = map_to_rdma({{"0000:18:00.3", "PCIDEVICE_A", ""}, {"0000:18:00.2", "PCIDEVICE_A", ""},
                                    {"0000:3b:00.4", "PCIDEVICE_A", ""}}, inv);
  ASSERT_EQ(mapping.hcas.size(), 2u);
  EXPECT_EQ(mapping.hcas[0].device, "mlx5_3");
  EXPECT_EQ(mapping.hcas[1].device, "mlx5_2");
  EXPECT_EQ(mapping.hcas[1].gid_index, 3);
  ASSERT_EQ(mapping.unmatched.size(), 1u);
  EXPECT_EQ(mapping.unmatched[0].pci_address, "0000:3b:00.4");
}

TEST(FabricEnv, ExportsForThePod) {
  const auto inv = read_rdma_inventory(roce());
  const auto pod = map_to_rdma({{"0000:18:00.2", "x", ""}, {"0000:18:00.3", "x", ""}}, inv);
  const auto advice = advise_environment(pod, default_route_interface(roce()), {"eth0", "net1", "net2"}, {});
  EXPECT_TRUE(advice.failures.empty());
  const std::string text = render_exports(advice);
  EXPECT_NE(text.find("export NCCL_IB_HCA='=mlx5_2,mlx5_3'\n"), std::string::npos) << text;
  EXPECT_NE(text.find("export UCX_NET_DEVICES='mlx5_2:1,mlx5_3:1'\n"), std::string::npos) << text;
  EXPECT_NE(text.find("export NCCL_IB_GID_INDEX='3'\n"), std::string::npos) << text;
  EXPECT_NE(text.find("export NCCL_SOCKET_IFNAME='=eth0'\n"), std::string::npos) << text;
}

TEST(FabricEnv, UserSettingNamingAbsentDevicesFails) {
  const auto pod = map_to_rdma({{"0000:18:00.2", "x", ""}}, read_rdma_inventory(roce()));
  auto advice = advise_environment(pod, "eth0", {"eth0", "net1"}, {{"NCCL_IB_HCA", "=mlx5_2,mlx5_7:1"}});
  ASSERT_EQ(advice.failures.size(), 1u);
  EXPECT_NE(advice.failures[0].find("mlx5_7:1"), std::string::npos);
  EXPECT_NE(advice.failures[0].find("it has mlx5_2:1"), std::string::npos);
  // Prefix form: mlx5 matches mlx5_2; an exclude list never fails.
  EXPECT_TRUE(advise_environment(pod, "eth0", {"eth0"}, {{"NCCL_IB_HCA", "mlx5"}}).failures.empty());
  EXPECT_TRUE(advise_environment(pod, "eth0", {"eth0"}, {{"NCCL_IB_HCA", "^mlx5_9"}}).failures.empty());
  EXPECT_EQ(advise_environment(pod, "eth0", {"eth0"}, {{"UCX_NET_DEVICES", "mlx5_0:1"}}).failures.size(), 1u);
  EXPECT_EQ(advise_environment(pod, "eth0", {"eth0"}, {{"NCCL_SOCKET_IFNAME", "=ens5"}}).failures.size(), 1u);
  // A fitting user setting is kept, not overridden.
  advice = advise_environment(pod, "eth0", {"eth0"}, {{"NCCL_IB_HCA", "mlx5_2"}});
  EXPECT_TRUE(advice.failures.empty());
  EXPECT_EQ(render_exports(advice).find("export NCCL_IB_HCA"), std::string::npos);
}

TEST(FabricEnv, NoRdmaSaysSockets) {
  const auto advice = advise_environment({}, "eth0", {"eth0"}, {});
  const std::string text = render_exports(advice);
  EXPECT_NE(text.find("# no RDMA devices: NCCL will use TCP sockets"), std::string::npos) << text;
  EXPECT_EQ(text.find("NCCL_IB_HCA"), std::string::npos);
}

TEST(FabricEnv, ShellQuoting) {
  EXPECT_EQ(shell_quote("=mlx5_0"), "'=mlx5_0'");
  EXPECT_EQ(shell_quote("a'b"), "'a'\\''b'");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
}

}  // namespace
}  // namespace commsweep::fabric

namespace commsweep::fabric {
namespace {

// The message of the PodDeviceError that parsing `text` as network-status throws ("" if none).
std::string network_status_error(const std::string& text) {
  std::string iface;
  try {
    parse_network_status(text, &iface);
  } catch (const PodDeviceError& e) {
    return e.what();
  }
  return "";
}

// Fields of the wrong type were nlohmann type_errors that ended `commsweep env` with an
// uncaught exception; an interface name with a newline would have reached the export lines.
TEST(FabricPod, NetworkStatusFieldsOfTheWrongTypeOrShapeAreNamed) {
  EXPECT_EQ(network_status_error(R"([{"name":"a","device-info":{"pci":{"pci-address":5}}}])"),
            "network-status: attachment a device-info.pci has \"pci-address\": 5, not a string");
  EXPECT_EQ(network_status_error(R"([{"name":"a","default":"yes","interface":"eth0"}])"),
            "network-status: attachment a has \"default\": \"yes\", not true or false");
  EXPECT_EQ(network_status_error(R"([{"name":["x"]}])"),
            "network-status: an attachment has \"name\": [\"x\"], not a string");
  EXPECT_EQ(network_status_error(R"([{"name":"a","default":true,"interface":"eth0\nexport X=1"}])"),
            "network-status: attachment a has interface \"eth0\\nexport X=1\", not an interface name");
  EXPECT_NE(network_status_error(R"([{"name":"a","interface":"sixteen-chars-xx"}])"), "");
  EXPECT_EQ(network_status_error(R"([{"name":"a","default":true,"interface":"net1"}])"), "");
}

}  // namespace
}  // namespace commsweep::fabric
