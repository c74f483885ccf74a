// Which NCCL library the lsa exchange accepts for the headers it was built with.
#include "ep/lsa_versions.hpp"

#include <gtest/gtest.h>

namespace commsweep::ep {
namespace {

TEST(LsaVersions, SameVersionRuns) { EXPECT_EQ(lsa_version_problem(22809, 22809), ""); }

TEST(LsaVersions, OlderLibraryIsRefusedNamingBoth) {
  const std::string why = lsa_version_problem(22809, 22803);
  EXPECT_NE(why.find("2.28.9 headers"), std::string::npos) << why;
  EXPECT_NE(why.find("library in use is 2.28.3"), std::string::npos) << why;
  EXPECT_NE(why.find("LD_LIBRARY_PATH"), std::string::npos) << why;
}

TEST(LsaVersions, NewerLibraryIsRefusedToo) {
  // Built against the machine's 2.28.3, run on the pip 2.28.9: the library would fill a larger
  // ncclDevComm than the binary allocated.
  const std::string why = lsa_version_problem(22803, 22809);
  EXPECT_NE(why.find("must be 2.28.3 exactly"), std::string::npos) << why;
}

TEST(LsaVersions, HeadersWithoutDeviceApi) {
  const std::string why = lsa_version_problem(22703, 22809);
  EXPECT_NE(why.find("2.27.3"), std::string::npos) << why;
  EXPECT_NE(why.find("no device API"), std::string::npos) << why;
}

}  // namespace
}  // namespace commsweep::ep
