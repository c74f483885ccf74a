// The words a newcomer reads first: "did you mean" (core/strings.hpp), plurals, and which
// transport the mpi backend's MPI chose (mpitransport/mpi_components.hpp) from maps texts in
// /proc/PID/maps' own format.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/strings.hpp"
#include "mpitransport/mpi_components.hpp"

namespace commsweep {
namespace {

const std::vector<std::string> kNames = {"ep", "list", "pairs", "preflight", "suite", "baseline", "compare",
                                         "env", "topo", "transport", "all", "all_reduce", "all_gather",
                                         "broadcast", "reduce", "reduce_scatter", "alltoall", "sendrecv"};

TEST(DidYouMean, ATypoFindsTheCommandOrTest) {
  EXPECT_EQ(closest_name("prefligt", kNames), "preflight");
  EXPECT_EQ(closest_name("all_gathr", kNames), "all_gather");
  EXPECT_EQ(closest_name("comapre", kNames), "compare");  // two letters swapped: one edit
  EXPECT_EQ(closest_name("ALL_REDUCE", kNames), "all_reduce");
  EXPECT_EQ(closest_name("basline", kNames), "baseline");
}

TEST(DidYouMean, AWordFarFromEveryNameFindsNothing) {
  EXPECT_EQ(closest_name("foo", kNames), "");
  EXPECT_EQ(closest_name("kubernetes", kNames), "");
  EXPECT_EQ(closest_name("x", kNames), "");
}

// "dtypes: float, bf16" in a suite and -d 'float, bf16' on a command line: each item trimmed.
TEST(CommaLists, ItemsAreTrimmed) {
  EXPECT_EQ(split_commas("float, bf16"), (std::vector<std::string>{"float", "bf16"}));
  EXPECT_EQ(split_commas(" a ,\tb\t,, ,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_commas(" , "), std::vector<std::string>{});
  EXPECT_EQ(split_commas("all_reduce"), std::vector<std::string>{"all_reduce"});
}

TEST(Plurals, OneIsSingular) {
  EXPECT_EQ(count_of(1, "rank"), "1 rank");
  EXPECT_EQ(count_of(0, "run"), "0 runs");
  EXPECT_EQ(count_of(3, "round"), "3 rounds");
  EXPECT_EQ(count_of(2, "index", "indices"), "2 indices");
}

std::string maps_line(const std::string& library) {
  return "7f1c2a000000-7f1c2a004000 r-xp 00000000 08:01 1234567                    "
         "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/" + library + "\n";
}

TEST(MpiTransport, Ob1WithSharedMemoryAndTcp) {
  const std::string maps = maps_line("mca_pml_ob1.so") + maps_line("mca_btl_self.so") + maps_line("mca_btl_sm.so") +
                           maps_line("mca_btl_vader.so") + maps_line("mca_btl_tcp.so") + maps_line("mca_btl_tcp.so") +
                           "7f1c2b000000-7f1c2b001000 rw-p 00000000 00:00 0 \n";
  const auto c = mpitransport::components_in_maps(maps);
  EXPECT_EQ(c.pml, std::vector<std::string>{"ob1"});
  EXPECT_EQ(c.btl, (std::vector<std::string>{"self", "sm", "vader", "tcp"}));
  EXPECT_EQ(mpitransport::describe(c),
            "transport: Open MPI pml ob1, vader (shared memory) within a host, tcp (TCP) between hosts");
}

TEST(MpiTransport, Ucx) {
  const auto c = mpitransport::components_in_maps(maps_line("mca_pml_ucx.so") + maps_line("mca_osc_ucx.so"));
  EXPECT_EQ(mpitransport::describe(c), "transport: UCX (Open MPI pml ucx; UCX_TLS chooses shared memory, RDMA or TCP)");
}

TEST(MpiTransport, NoOpenMpiComponentSaysNothing) {
  EXPECT_EQ(mpitransport::describe(mpitransport::components_in_maps(maps_line("libmpich.so.12"))), "");
}

}  // namespace
}  // namespace commsweep
