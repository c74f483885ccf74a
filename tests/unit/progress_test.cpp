// The progress line's text: count, test, size, elapsed, ETA from the mean time per row.
#include <gtest/gtest.h>

#include "run/progress.hpp"

namespace commsweep {
namespace {

TEST(ProgressLine, ShowsCountSizeElapsedAndEta) {
  // 10 of 40 rows in 30 s: 3 s a row, 30 rows left.
  EXPECT_EQ(progress_text(10, 40, "all_reduce", 64 << 20, 30), "[10/40] all_reduce 64M  elapsed 0:30  ETA 1:30");
}

TEST(ProgressLine, HoursAndNoEtaAtTheEnd) {
  EXPECT_EQ(progress_text(40, 40, "alltoall", 1 << 30, 3725), "[40/40] alltoall 1G  elapsed 1:02:05");
}

TEST(ProgressLine, AnEndlessSweepHasNoTotal) {
  EXPECT_EQ(progress_text(7, 0, "sendrecv", 8, 2), "[7] sendrecv 8  elapsed 0:02");
}

}  // namespace
}  // namespace commsweep
