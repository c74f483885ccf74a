// The NCCL version policy (src/nccl_policy/) over a table of (headers, library) pairs: for each
// path the verdict and the exact message a user would read.
#include "nccl_policy/policy.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ep/nccl_policy.hpp"
#include "core/error.hpp"

namespace commsweep::nccl_policy {
namespace {

struct Case {
  int headers, library;
  const char* dev_api_jit;  // NCCL_DEV_API_JIT, nullptr: unset
  bool device_api_built;
  const char* path;  // a name of nccl_policy/paths/
  Verdict verdict;
  const char* message;
};

// Generated once from the rules and then read line by line against NCCL's sources (the
// devCommCompat tables of the 2.30.7, 2.31.2 and 2.32.3 libraries, nccl_device headers
// 2.28.3 to 2.32.3): a change of a rule or a word shows here.
const Case kCases[] = {
    {22803, 22809, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.28.9 is newer than the headers (2.28.3): NCCL's host API is backward compatible"},
    {22803, 22809, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.28.9 is newer than the headers (2.28.3): NCCL's host API is backward compatible"},
    {22803, 22809, nullptr, true, "lsa_ep", Verdict::Refused,
     "built against NCCL 2.28.3 headers but the library in use is 2.28.9: the 2.28 device API's structures (ncclDevComm, ncclDevCommRequirements, ncclDevResourceRequirements) carry no version and differ between 2.28 releases, so the library must be 2.28.3 exactly: point LD_LIBRARY_PATH at the folder of NCCL 2.28.3's libnccl.so.2, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)"},
    {22803, 22809, nullptr, true, "ll_all_to_all_counts", Verdict::Refused,
     "ncclLLA2ACreateRequirement fills an ncclDevResourceRequirements, which carries no version: NCCL 2.28.3's has 4 fields (32 bytes), 2.28.7's and later 8 (56 bytes), and the headers (2.28.3) and the library (2.28.9) disagree: point LD_LIBRARY_PATH at the folder of NCCL 2.28.3's libnccl.so.2, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)"},
    {22809, 22907, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.29.7 is newer than the headers (2.28.9): NCCL's host API is backward compatible"},
    {22809, 22907, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.29.7 is newer than the headers (2.28.9): NCCL's host API is backward compatible"},
    {22809, 22907, nullptr, true, "lsa_ep", Verdict::Refused,
     "built against NCCL 2.28.9 headers but the library in use is 2.29.7: from 2.29 NCCL takes only an ncclDevCommRequirements made by NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER (size, magic, version), which the 2.28 headers lack (ncclDevCommCreate would answer ncclInvalidUsage): rebuild with NCCL_ROOT set to the NCCL 2.29.7 you run with (scripts/build.sh), or point LD_LIBRARY_PATH at the folder of NCCL 2.28.9's libnccl.so.2"},
    {22809, 22907, nullptr, true, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: built against NCCL 2.28.9 headers but the library in use is 2.29.7: from 2.29 NCCL takes only an ncclDevCommRequirements made by NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER (size, magic, version), which the 2.28 headers lack (ncclDevCommCreate would answer ncclInvalidUsage): rebuild with NCCL_ROOT set to the NCCL 2.29.7 you run with (scripts/build.sh), or point LD_LIBRARY_PATH at the folder of NCCL 2.28.9's libnccl.so.2"},
    {23004, 23102, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.31.2 is newer than the headers (2.30.4): NCCL's host API is backward compatible"},
    {23004, 23102, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.31.2 is newer than the headers (2.30.4): NCCL's host API is backward compatible"},
    {23004, 23102, nullptr, true, "lsa_ep", Verdict::AcceptedWithSetting,
     "built against NCCL 2.30.4 headers, library 2.31.2: NCCL 2.31.2 keeps the device API of 2.30.4 (ncclDevCommRequirements says version 2.30.4; NCCL fills ncclDevComm in 2.30.4's layout)"},
    {23004, 23102, nullptr, true, "ll_all_to_all_counts", Verdict::Accepted,
     "ncclDevResourceRequirements and ncclLLA2AHandle have one layout in 2.30.4 and 2.31.2 (unchanged from 2.28.7 through 2.32.3)"},
    {23102, 23203, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible"},
    {23102, 23203, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible"},
    {23102, 23203, nullptr, true, "lsa_ep", Verdict::AcceptedWithSetting,
     "built against NCCL 2.31.2 headers, library 2.32.3: NCCL 2.32.3 keeps the device API of 2.31.2 (ncclDevCommRequirements says version 2.31.2; NCCL fills ncclDevComm in 2.31.2's layout)"},
    {23102, 23203, nullptr, true, "ll_all_to_all_counts", Verdict::Accepted,
     "ncclDevResourceRequirements and ncclLLA2AHandle have one layout in 2.31.2 and 2.32.3 (unchanged from 2.28.7 through 2.32.3)"},
    {22809, 22803, nullptr, true, "host_collectives", Verdict::Refused,
     "the NCCL library loaded at run time is 2.28.3, older than the headers commsweep was built with (2.28.9), whose symbols and structures it may lack: point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.28.9 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.3 you run with (scripts/build.sh)"},
    {22809, 22803, nullptr, true, "alltoallv_ep", Verdict::Refused,
     "the NCCL library loaded at run time is 2.28.3, older than the headers commsweep was built with (2.28.9), whose symbols and structures it may lack: point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.28.9 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.3 you run with (scripts/build.sh)"},
    {22809, 22803, nullptr, true, "lsa_ep", Verdict::Refused,
     "built against NCCL 2.28.9 headers but the library in use is 2.28.3: the 2.28 device API's structures (ncclDevComm, ncclDevCommRequirements, ncclDevResourceRequirements) carry no version and differ between 2.28 releases, so the library must be 2.28.9 exactly: point LD_LIBRARY_PATH at the folder of NCCL 2.28.9's libnccl.so.2, or rebuild with NCCL_ROOT set to the NCCL 2.28.3 you run with (scripts/build.sh)"},
    {22809, 22803, nullptr, true, "ll_all_to_all_counts", Verdict::Refused,
     "ncclLLA2ACreateRequirement fills an ncclDevResourceRequirements, which carries no version: NCCL 2.28.3's has 4 fields (32 bytes), 2.28.7's and later 8 (56 bytes), and the headers (2.28.9) and the library (2.28.3) disagree: point LD_LIBRARY_PATH at the folder of NCCL 2.28.9's libnccl.so.2, or rebuild with NCCL_ROOT set to the NCCL 2.28.3 you run with (scripts/build.sh)"},
    {22809, 22809, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.28.9 is the headers' release"},
    {22809, 22809, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.28.9 is the headers' release"},
    {22809, 22809, nullptr, true, "lsa_ep", Verdict::Accepted,
     "library 2.28.9 is the headers' release (the 2.28 device API, unversioned, runs on its own release only)"},
    {22809, 22809, nullptr, true, "ll_all_to_all_counts", Verdict::Accepted,
     "library 2.28.9 is the headers' release"},
    {23203, 22809, nullptr, true, "host_collectives", Verdict::Refused,
     "the NCCL library loaded at run time is 2.28.9, older than the headers commsweep was built with (2.32.3), whose symbols and structures it may lack: point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.32.3 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)"},
    {23203, 22809, nullptr, true, "alltoallv_ep", Verdict::Refused,
     "the NCCL library loaded at run time is 2.28.9, older than the headers commsweep was built with (2.32.3), whose symbols and structures it may lack: point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.32.3 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)"},
    {23203, 22809, nullptr, true, "lsa_ep", Verdict::Refused,
     "built against NCCL 2.32.3 headers but the library in use is 2.28.9, older: NCCL refuses device code built against newer headers than its own (\"NCCL library is too old\"): point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.32.3 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)"},
    {23203, 22809, nullptr, true, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: built against NCCL 2.32.3 headers but the library in use is 2.28.9, older: NCCL refuses device code built against newer headers than its own (\"NCCL library is too old\"): point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.32.3 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)"},
    {23203, 23203, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.32.3 is the headers' release"},
    {23203, 23203, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.32.3 is the headers' release"},
    {23203, 23203, nullptr, true, "lsa_ep", Verdict::Accepted,
     "library 2.32.3 is the headers' release"},
    {23203, 23203, nullptr, true, "ll_all_to_all_counts", Verdict::Accepted,
     "library 2.32.3 is the headers' release"},
    {23102, 23203, "1", true, "host_collectives", Verdict::Accepted,
     "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible"},
    {23102, 23203, "1", true, "alltoallv_ep", Verdict::Accepted,
     "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible"},
    {23102, 23203, "1", true, "lsa_ep", Verdict::Refused,
     "NCCL_DEV_API_JIT=1 tells NCCL 2.32.3 that device code was JIT-compiled against its own headers, but commsweep's lsa kernels were compiled ahead of time against 2.31.2: unset NCCL_DEV_API_JIT (or set it to 0), or rebuild with NCCL_ROOT set to the NCCL 2.32.3 you run with (scripts/build.sh)"},
    {23102, 23203, "1", true, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: NCCL_DEV_API_JIT=1 tells NCCL 2.32.3 that device code was JIT-compiled against its own headers, but commsweep's lsa kernels were compiled ahead of time against 2.31.2: unset NCCL_DEV_API_JIT (or set it to 0), or rebuild with NCCL_ROOT set to the NCCL 2.32.3 you run with (scripts/build.sh)"},
    {23102, 23203, "0", true, "host_collectives", Verdict::Accepted,
     "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible"},
    {23102, 23203, "0", true, "alltoallv_ep", Verdict::Accepted,
     "library 2.32.3 is newer than the headers (2.31.2): NCCL's host API is backward compatible"},
    {23102, 23203, "0", true, "lsa_ep", Verdict::AcceptedWithSetting,
     "built against NCCL 2.31.2 headers, library 2.32.3: NCCL 2.32.3 keeps the device API of 2.31.2 (ncclDevCommRequirements says version 2.31.2; NCCL fills ncclDevComm in 2.31.2's layout)"},
    {23102, 23203, "0", true, "ll_all_to_all_counts", Verdict::Accepted,
     "ncclDevResourceRequirements and ncclLLA2AHandle have one layout in 2.31.2 and 2.32.3 (unchanged from 2.28.7 through 2.32.3)"},
    {22904, 23007, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.30.7 is newer than the headers (2.29.4): NCCL's host API is backward compatible"},
    {22904, 23007, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.30.7 is newer than the headers (2.29.4): NCCL's host API is backward compatible"},
    {22904, 23007, nullptr, true, "lsa_ep", Verdict::Refused,
     "built against NCCL 2.29.4 headers, but NCCL 2.30.7 keeps the device API of releases 2.29.2-2.29.3, 2.29.5-2.29.7, 2.30.0-2.30.7 only: rebuild with NCCL_ROOT set to the NCCL 2.30.7 you run with (scripts/build.sh)"},
    {22904, 23007, nullptr, true, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: built against NCCL 2.29.4 headers, but NCCL 2.30.7 keeps the device API of releases 2.29.2-2.29.3, 2.29.5-2.29.7, 2.30.0-2.30.7 only: rebuild with NCCL_ROOT set to the NCCL 2.30.7 you run with (scripts/build.sh)"},
    {22707, 22809, nullptr, false, "host_collectives", Verdict::Accepted,
     "library 2.28.9 is newer than the headers (2.27.7): NCCL's host API is backward compatible"},
    {22707, 22809, nullptr, false, "alltoallv_ep", Verdict::Accepted,
     "library 2.28.9 is newer than the headers (2.27.7): NCCL's host API is backward compatible"},
    {22707, 22809, nullptr, false, "lsa_ep", Verdict::Refused,
     "this build's NCCL headers (2.27.7) have no device API (nccl_device.h, NCCL 2.28 or later): rebuild with NCCL_ROOT set to an NCCL of 2.29.2 or later (scripts/build.sh)"},
    {22707, 22809, nullptr, false, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: this build's NCCL headers (2.27.7) have no device API (nccl_device.h, NCCL 2.28 or later): rebuild with NCCL_ROOT set to an NCCL of 2.29.2 or later (scripts/build.sh)"},
    {22809, 22809, nullptr, false, "host_collectives", Verdict::Accepted,
     "library 2.28.9 is the headers' release"},
    {22809, 22809, nullptr, false, "alltoallv_ep", Verdict::Accepted,
     "library 2.28.9 is the headers' release"},
    {22809, 22809, nullptr, false, "lsa_ep", Verdict::Refused,
     "this build's NCCL 2.28.9 headers lack nccl_device.h (the device API): rebuild with NCCL_ROOT set to a full NCCL install of 2.29.2 or later (scripts/build.sh)"},
    {22809, 22809, nullptr, false, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: this build's NCCL 2.28.9 headers lack nccl_device.h (the device API): rebuild with NCCL_ROOT set to a full NCCL install of 2.29.2 or later (scripts/build.sh)"},
    {22809, 0, nullptr, true, "host_collectives", Verdict::Refused,
     "the NCCL library's version is unknown (ncclGetVersion failed): point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.28.9 or newer"},
    {22809, 0, nullptr, true, "alltoallv_ep", Verdict::Refused,
     "the NCCL library's version is unknown (ncclGetVersion failed): point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.28.9 or newer"},
    {22809, 0, nullptr, true, "lsa_ep", Verdict::Refused,
     "the NCCL library's version is unknown (ncclGetVersion failed): point LD_LIBRARY_PATH at the folder of NCCL 2.28.9's libnccl.so.2"},
    {22809, 0, nullptr, true, "ll_all_to_all_counts", Verdict::Refused,
     "the counts' LL all-to-all needs the lsa device communicator: the NCCL library's version is unknown (ncclGetVersion failed): point LD_LIBRARY_PATH at the folder of NCCL 2.28.9's libnccl.so.2"},
    {23203, 23301, nullptr, true, "host_collectives", Verdict::Accepted,
     "library 2.33.1 is newer than the headers (2.32.3): NCCL's host API is backward compatible"},
    {23203, 23301, nullptr, true, "alltoallv_ep", Verdict::Accepted,
     "library 2.33.1 is newer than the headers (2.32.3): NCCL's host API is backward compatible"},
    {23203, 23301, nullptr, true, "lsa_ep", Verdict::AcceptedWithSetting,
     "built against NCCL 2.32.3 headers, library 2.33.1: NCCL 2.33.1 keeps the device API of 2.32.3 (ncclDevCommRequirements says version 2.32.3; NCCL fills ncclDevComm in 2.32.3's layout); 2.33.1 is newer than the newest release this policy was checked against (2.32.3)"},
    {23203, 23301, nullptr, true, "ll_all_to_all_counts", Verdict::Accepted,
     "ncclDevResourceRequirements and ncclLLA2AHandle have one layout in 2.32.3 and 2.33.1 (unchanged from 2.28.7 through 2.32.3)"},
    {23004, 23004, "1", true, "host_collectives", Verdict::Accepted,
     "library 2.30.4 is the headers' release"},
    {23004, 23004, "1", true, "alltoallv_ep", Verdict::Accepted,
     "library 2.30.4 is the headers' release"},
    {23004, 23004, "1", true, "lsa_ep", Verdict::Accepted,
     "library 2.30.4 is the headers' release"},
    {23004, 23004, "1", true, "ll_all_to_all_counts", Verdict::Accepted,
     "library 2.30.4 is the headers' release"},
};

std::string label(const Case& c) {
  return version_text(c.headers) + " headers, library " + version_text(c.library) +
         (c.dev_api_jit ? std::string(" NCCL_DEV_API_JIT=") + c.dev_api_jit : "") +
         (c.device_api_built ? "" : " (no device API built)") + ", " + c.path;
}

TEST(NcclPolicy, EveryPairDecidesAsTheTableSays) {
  for (const Case& c : kCases) {
    Versions v{c.headers, c.library, c.device_api_built, std::nullopt};
    if (c.dev_api_jit) v.dev_api_jit = c.dev_api_jit;
    const Decision d = decide(c.path, v);
    EXPECT_EQ(d.path, c.path) << label(c);
    EXPECT_EQ(name_of(d.verdict), name_of(c.verdict)) << label(c);
    EXPECT_EQ(d.message, c.message) << label(c);
  }
}

TEST(NcclPolicy, TheRequiredPairsAreInTheTable) {
  const std::pair<int, int> required[] = {{22803, 22809}, {22809, 22907}, {23004, 23102}, {23102, 23203}};
  for (const auto& [headers, library] : required) {
    int paths = 0;
    for (const Case& c : kCases) paths += c.headers == headers && c.library == library && !c.dev_api_jit;
    EXPECT_EQ(paths, 4) << version_text(headers) << " vs " << version_text(library);
  }
}

TEST(NcclPolicy, MixedDeviceApiNamesItsSettings) {
  const Decision d = decide("lsa_ep", {23102, 23203, true, std::nullopt});
  ASSERT_EQ(d.settings.size(), 2u);
  EXPECT_EQ(d.settings[0].name, "useRuntimeVersion");
  EXPECT_EQ(d.settings[0].value, "false");
  EXPECT_EQ(d.settings[0].how, Setting::How::SetByCommsweep);
  EXPECT_EQ(d.settings[1].name, "NCCL_DEV_API_JIT");
  EXPECT_EQ(d.settings[1].how, Setting::How::Demanded);
  EXPECT_EQ(summary(d), "lsa_ep: accepted_with_setting (useRuntimeVersion=false, set; NCCL_DEV_API_JIT=0 or unset, demanded)");
  // 2.30 headers have no useRuntimeVersion; a 2.30.4 library reads no NCCL_DEV_API_JIT.
  EXPECT_TRUE(decide("lsa_ep", {23003, 23004, true, std::nullopt}).settings.empty());
  EXPECT_EQ(name_of(decide("lsa_ep", {23003, 23004, true, std::nullopt}).verdict), "accepted");
  // The same release: nothing to set, whatever NCCL_DEV_API_JIT says.
  EXPECT_TRUE(decide("lsa_ep", {23203, 23203, true, std::string("1")}).settings.empty());
}

TEST(NcclPolicy, RefusalsNameARemedy) {
  for (int headers : {22803, 22809, 23004, 23102, 23203}) {
    for (int library : {22803, 22809, 22907, 23004, 23102, 23203}) {
      for (const Decision& d : decide_all({headers, library, true, std::nullopt})) {
        if (!d.refused()) continue;
        const bool remedy = d.message.find("LD_LIBRARY_PATH") != std::string::npos ||
                            d.message.find("NCCL_ROOT") != std::string::npos;
        EXPECT_TRUE(remedy) << version_text(headers) << " vs " << version_text(library) << ": " << d.message;
      }
    }
  }
}

TEST(NcclPolicy, VersionText) {
  EXPECT_EQ(version_text(22809), "2.28.9");
  EXPECT_EQ(version_text(23203), "2.32.3");
  EXPECT_EQ(version_text(0), "unknown");
  EXPECT_EQ(version(2, 31, 2), 23102);
}

}  // namespace
}  // namespace commsweep::nccl_policy

// What `commsweep ep` does with an lsa the policy refused (ep/nccl_policy): never a silent
// fallback.
namespace commsweep {
namespace {

TEST(NcclPolicyEp, LsaAloneRefusedIsAnErrorOfExitCode3) {
  ep::EpConfig config;
  config.impls = {"lsa"};
  try {
    ep::leave_out_refused(config, {{"lsa", "built against NCCL 2.32.3 headers but the library in use is 2.28.9, older"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), exit_code::kRuntime);
    EXPECT_EQ(std::string(e.what()), "--ep-impl lsa: built against NCCL 2.32.3 headers but the library in use is 2.28.9, older");
  }
}

TEST(NcclPolicyEp, BesideAlltoallvLsaIsLeftOutWithANote) {
  ep::EpConfig config;
  config.impls = {"alltoallv", "lsa"};
  const std::string note = ep::leave_out_refused(config, {{"lsa", "rank 1 (node2): why"}});
  EXPECT_EQ(note, "--ep-impl lsa left out by the NCCL version policy (the rows are alltoallv's only): rank 1 (node2): why");
  EXPECT_EQ(config.impls, std::vector<std::string>{"alltoallv"});
}

TEST(NcclPolicyEp, AcceptedOrNotAskedChangesNothing) {
  ep::EpConfig config;
  config.impls = {"alltoallv", "lsa"};
  EXPECT_EQ(ep::leave_out_refused(config, {}), "");
  EXPECT_EQ(config.impls.size(), 2u);
  config.impls = {"alltoallv"};
  EXPECT_EQ(ep::leave_out_refused(config, {{"lsa", "why"}}), "");
  EXPECT_EQ(config.impls.size(), 1u);
}

}  // namespace
}  // namespace commsweep
