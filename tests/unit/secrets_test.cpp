// Credentials never reach what commsweep writes: the words and value shapes core/secrets.hpp
// knows, and preflight's UCX / Open MPI settings (printed and stored in the preflight JSON),
// which go through the same filter as the results' provenance (provenance_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/secrets.hpp"
#include "fabric/ucx_info.hpp"

namespace commsweep {
namespace {

TEST(LooksSecret, MoreCredentialWords) {
  for (const char* name : {"UCX_PASSPHRASE", "NCCL_KEY_PASSPHRASE", "UCX_SESSION_COOKIE", "NCCL_CRED",
                           "UCX_CREDS", "OMPI_MCA_plm_rsh_password", "NCCL_CLIENT_CERT"}) {
    EXPECT_TRUE(looks_secret(name)) << name;
  }
}

TEST(LooksSecret, FabricWordsNearCredentialWordsStay) {
  // KEEPALIVE is not KEY, PKEY is InfiniBand's partition key, CREDIT is not CRED.
  for (const char* name : {"UCX_KEEPALIVE_INTERVAL", "UCX_IB_PKEY", "NCCL_IB_PKEY", "UCX_RC_FC_ENABLE",
                           "UCX_RC_MAX_NUM_CREDITS", "NCCL_PASSES", "OMPI_MCA_btl_tcp_if_include"}) {
    EXPECT_FALSE(looks_secret(name)) << name;
  }
}

TEST(LooksSecretSetting, NameOrValue) {
  EXPECT_TRUE(looks_secret_setting("UCX_TOKEN", "x"));
  EXPECT_TRUE(looks_secret_setting("UCX_PROXY", "http://u:pw@proxy.example/"));
  EXPECT_FALSE(looks_secret_setting("UCX_TLS", "rc,sm,self"));
}

fabric::UcxInfo ucx_of(std::vector<std::string> entries) {
  std::vector<char*> envp;
  for (auto& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  return fabric::read_ucx_info(envp.data());
}

TEST(UcxInfo, SettingsLeaveCredentialsOut) {
  const auto info = ucx_of({"UCX_TLS=rc,sm,self", "OMPI_MCA_pml=ucx", "UCX_API_TOKEN=t0ps3cret",
                            "UCX_PROXY=https://user:hunter2@proxy.example/",
                            "OMPI_MCA_btl_tcp_password=hunter3", "PATH=/usr/bin"});
  EXPECT_EQ(info.settings,
            (std::map<std::string, std::string>{{"OMPI_MCA_pml", "ucx"}, {"UCX_TLS", "rc,sm,self"}}));
  EXPECT_EQ(info.withheld, 3);
  const std::string message = fabric::describe_ucx(info).reason;
  for (const char* secret : {"t0ps3cret", "hunter2", "hunter3", "UCX_API_TOKEN"}) {
    EXPECT_EQ(message.find(secret), std::string::npos) << message;
  }
  EXPECT_NE(message.find("UCX_TLS=rc,sm,self"), std::string::npos) << message;
  EXPECT_NE(message.find("3 that look like credentials not shown"), std::string::npos) << message;
}

TEST(UcxInfo, NothingWithheldSaysNothing) {
  const auto info = ucx_of({"UCX_TLS=tcp"});
  EXPECT_EQ(info.withheld, 0);
  EXPECT_EQ(fabric::describe_ucx(info).reason.find("credentials"), std::string::npos);
}

}  // namespace
}  // namespace commsweep
