// The environment that travels with results: the fabric settings that explain a number
// (NCCL_*, UCX_*), and nothing that looks like a credential, since result files get shared.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "run/provenance.hpp"
#include "core/secrets.hpp"

namespace commsweep {
namespace {

std::map<std::string, std::string> fabric_of(std::vector<std::string> entries) {
  std::vector<char*> envp;
  for (auto& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  return fabric_environment(envp.data());
}

TEST(LooksSecret, CredentialWords) {
  for (const char* name : {"NCCL_API_KEY", "UCX_TOKEN", "NCCL_SECRET", "NCCL_PASSWORD",
                           "UCX_PASSWD", "NCCL_CREDENTIALS", "NCCL_AUTH", "ucx_auth_file",
                           "nccl_token"}) {
    EXPECT_TRUE(looks_secret(name)) << name;
  }
}

TEST(LooksSecret, FabricSettingsAreNotSecrets) {
  for (const char* name : {"NCCL_DEBUG", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_NET_GDR_LEVEL",
                           "NCCL_TOPO_FILE", "NCCL_ALGO", "NCCL_PROTO", "UCX_TLS",
                           "UCX_NET_DEVICES", "NCCL_IB_GID_INDEX", "NCCL_CROSS_NIC",
                           "NCCL_IB_PKEY", "UCX_IB_PKEY"}) {
    EXPECT_FALSE(looks_secret(name)) << name;
  }
}

TEST(LooksSecret, CredentialWordsInsideWords) {
  for (const char* name : {"NCCL_MYTOKEN", "UCX_AUTHTOKEN", "NCCL_AUTHORIZATION", "UCX_SSHKEY",
                           "NCCL_ACCESSKEY", "NCCL_DB_PASSWORDS", "UCX_CLIENT_SECRETS",
                           "NCCL_CREDENTIAL_FILE", "NCCL_PRIVATEKEY", "UCX_CERT"}) {
    EXPECT_TRUE(looks_secret(name)) << name;
  }
}

TEST(LooksSecretValue, CredentialsWhateverTheName) {
  for (const char* value :
       {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn", "Bearer abc.def", "basic dXNlcjpwYXNz",
        "https://user:hunter2@proxy.example:8080/", "ghp_0123456789abcdefABCDEF0123456789abcd",
        "xoxb-1234-5678-abcdefgh", "AKIAIOSFODNN7EXAMPLE", "sk-proj-0123456789abcdef",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg=="}) {
    EXPECT_TRUE(looks_secret_value(value)) << value;
  }
}

TEST(LooksSecretValue, FabricValuesAreNotSecrets) {
  for (const char* value :
       {"INFO", "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1", "rc,sm,self", "^lo,docker0", "eth0",
        "/etc/nccl/topology/H200x4_NVSwitch_Topology_Version2.xml", "3", "Ring,Tree",
        "INIT,GRAPH,NET,ENV,TUNING,COLL,P2P,SHM,BOOTSTRAP,REG", "http://proxy.example:3128/",
        "0x8001", "", "=mlx5_0", "SYS", "ib_mlx5_0_1_rdma_roce_v2_gid_index_3_priority_lossless"}) {
    EXPECT_FALSE(looks_secret_value(value)) << value;
  }
}

TEST(FabricEnvironment, DropsSecretLookingValues) {
  const auto env = fabric_of({"NCCL_DEBUG=WARN", "NCCL_IB_HCA=mlx5_0:1",
                              "NCCL_PROXY=https://u:p4ss@proxy.example/",
                              "UCX_SOMETHING=ghp_0123456789abcdefABCDEF0123456789abcd",
                              "NCCL_OPAQUE=Q2hhbmdlTWVQbGVhc2UxMjM0NTY3ODkwYWJjZGVm"});
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"},
                                                     {"NCCL_IB_HCA", "mlx5_0:1"}}));
}

TEST(FabricEnvironment, KeepsNcclAndUcxSettings) {
  const auto env = fabric_of({"NCCL_DEBUG=INFO", "UCX_TLS=rc,sm,self", "NCCL_IB_HCA=mlx5_0:1",
                              "HOME=/root", "PATH=/usr/bin", "CUDA_VISIBLE_DEVICES=0,1",
                              "OMPI_COMM_WORLD_RANK=0"});
  const std::map<std::string, std::string> want{
      {"NCCL_DEBUG", "INFO"}, {"UCX_TLS", "rc,sm,self"}, {"NCCL_IB_HCA", "mlx5_0:1"}};
  EXPECT_EQ(env, want);
}

TEST(FabricEnvironment, DropsSecretLookingNames) {
  const auto env = fabric_of({"NCCL_DEBUG=WARN", "NCCL_API_TOKEN=abc", "UCX_SECRET_KEY=xyz",
                              "NCCL_PASSWORD=hunter2", "UCX_AUTH=z"});
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}}));
}

TEST(FabricEnvironment, PrefixesAreExactAndCaseSensitive) {
  const auto env = fabric_of({"NCCLX_DEBUG=1", "MY_NCCL_DEBUG=1", "nccl_debug=1", "UCX=1",
                              "NCCL_=empty-name-tail", "UCX_=x"});
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"NCCL_", "empty-name-tail"}, {"UCX_", "x"}}));
}

TEST(FabricEnvironment, ValuesKeepEqualsSignsAndMayBeEmpty) {
  const auto env = fabric_of({"NCCL_IB_HCA==mlx5_0", "UCX_NET_DEVICES=", "NCCL_MALFORMED"});
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"NCCL_IB_HCA", "=mlx5_0"},
                                                     {"UCX_NET_DEVICES", ""}}));
}

TEST(FabricEnvironment, NoEnvironment) {
  EXPECT_TRUE(fabric_environment(nullptr).empty());
  EXPECT_TRUE(fabric_of({}).empty());
}

TEST(UtcNow, IsIso8601InUtc) {
  const std::string now = utc_now_iso8601();
  ASSERT_EQ(now.size(), 20u) << now;
  EXPECT_EQ(now[4], '-');
  EXPECT_EQ(now[7], '-');
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now[13], ':');
  EXPECT_EQ(now[16], ':');
  EXPECT_EQ(now[19], 'Z');
  EXPECT_GE(now.substr(0, 4), "2024");
}

}  // namespace
}  // namespace commsweep
