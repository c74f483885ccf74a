// What a new user trips on (issue 42): the pure decisions behind its messages, each with the
// exact text the user reads.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace commsweep {
namespace {

TEST(ErrorLine, NamesTheGpuOnlyWhereThereIsOne) {
  const Error e(ErrorKind::Runtime, "--json: cannot write /dev/full: No space left on device");
  EXPECT_EQ(error_line(0, "vm", -1, e),
            "commsweep: rank 0 (host vm): error: --json: cannot write /dev/full: No space left on device");
  EXPECT_EQ(error_line(3, "node1", 2, e),
            "commsweep: rank 3 (host node1, GPU 2): error: --json: cannot write /dev/full: No space left on device");
}

}  // namespace
}  // namespace commsweep
