// Each registered test's expectation, checked against the collective done by hand on the host:
// n ranks' inputs from fill_host, moved or reduced as NCCL defines the collective, then
// verify_host with the test's own Expect. A wrong block offset, root or neighbour in a
// collective's expect() shows here as wrong elements, without MPI or a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "collectives/collective_test.hpp"
#include "pattern/pattern.hpp"
#include "pattern/spec.hpp"
#include "reference_reduction.hpp"

namespace commsweep {
namespace {

constexpr std::uint64_t kExpectSeed = 0x5eed;
constexpr int kRoot = 1;

using Elements = std::vector<std::uint64_t>;  // one element's bits each

struct HostJob {
  const CollectiveTest& test;
  DataType type;
  RedOp op;
  int nranks;
  Counts counts;
  pattern::Spec spec;
  std::vector<Elements> inputs;  // per rank, send_count elements
};

HostJob make_job(const CollectiveTest& test, DataType type, RedOp op, int nranks,
                 std::size_t count) {
  HostJob w{test, type, test.reduces ? op : RedOp::None, nranks, test.counts(count, element_size(type), nranks),
            {}, {}};
  w.spec = make_spec(type, w.op, nranks, kExpectSeed);
  const std::size_t bytes = element_size(type);
  for (int r = 0; r < nranks; ++r) {
    std::vector<unsigned char> raw(w.counts.send_count * bytes);
    fill_host(raw.data(), w.counts.send_count, w.spec, r);
    Elements e(w.counts.send_count);
    for (std::size_t i = 0; i < e.size(); ++i) std::memcpy(&e[i], raw.data() + i * bytes, bytes);
    w.inputs.push_back(std::move(e));
  }
  return w;
}

// Element `index` of every rank's input, reduced in rank order in the type's arithmetic.
std::uint64_t reduce_at(const HostJob& w, std::size_t index) {
  std::vector<double> values;
  for (const auto& in : w.inputs) values.push_back(pattern::from_bits(in.at(index), w.spec.fmt));
  return testing::reduce_in_order(w.op, values, w.nranks, w.spec.fmt);
}

// What rank `rank` holds after the collective, by NCCL's definition of it.
Elements output_of(const HostJob& w, int rank) {
  const std::size_t block = w.counts.param_count;
  Elements out(w.counts.recv_count);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string_view name = w.test.name;
    if (name == "all_reduce" || name == "reduce") out[i] = reduce_at(w, i);
    if (name == "reduce_scatter") out[i] = reduce_at(w, rank * block + i);
    if (name == "all_gather") out[i] = w.inputs[i / block][i % block];
    if (name == "alltoall") out[i] = w.inputs[i / block][rank * block + i % block];
    if (name == "broadcast") out[i] = w.inputs[kRoot][i];
    if (name == "sendrecv") out[i] = w.inputs[(rank + w.nranks - 1) % w.nranks][i];
  }
  return out;
}

Mismatch verify(const HostJob& w, const Elements& out, int rank) {
  const std::size_t bytes = element_size(w.type);
  std::vector<unsigned char> raw(out.size() * bytes);
  for (std::size_t i = 0; i < out.size(); ++i) std::memcpy(raw.data() + i * bytes, &out[i], bytes);
  const pattern::Expect e = w.test.expect(w.spec, w.counts, rank, w.nranks, kRoot);
  return verify_host(raw.data(), out.size(), e);
}

// The first seven collectives, checked here once more against a host model of each (an extra
// check: a new collective's own test is its oracle, tests/collectives/<name>.py).
TEST(CollectiveExpect, EveryTestTypeAndOperatorMatchesTheHostCollective) {
  for (const char* name : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                           "reduce", "sendrecv"}) {
    const CollectiveTest* test = find_collective_test(name);
    ASSERT_NE(test, nullptr) << name;
    const std::vector<RedOp> ops = test->reduces ? all_red_ops() : std::vector<RedOp>{RedOp::None};
    for (DataType type : all_data_types()) {
      for (RedOp op : ops) {
        for (int n : {2, 3, 5}) {
          const HostJob w = make_job(*test, type, op, n, 61);
          for (int rank = 0; rank < n; ++rank) {
            if (!test->output_checked(rank, kRoot)) continue;
            const Mismatch m = verify(w, output_of(w, rank), rank);
            EXPECT_EQ(m.wrong, 0u) << test->name << " " << name_of(type) << " " << name_of(op)
                                   << " n=" << n << " rank " << rank << ": first at "
                                   << m.first_index;
          }
        }
      }
    }
  }
}

// The check has teeth: another rank's output is wrong for every collective whose output
// depends on the rank.
TEST(CollectiveExpect, AnotherRanksOutputIsWrong) {
  for (const CollectiveTest* test : {&reduce_scatter_test(), &alltoall_test(), &sendrecv_test()}) {
    const HostJob w = make_job(*test, DataType::Float32, RedOp::Sum, 4, 64);
    const Mismatch m = verify(w, output_of(w, 2), 1);
    EXPECT_GT(m.wrong, 0u) << test->name;
  }
}

// Gathered blocks out of order, or a broadcast from the wrong root, are caught.
TEST(CollectiveExpect, MisplacedBlocksAndWrongRootsAreWrong) {
  const HostJob gather = make_job(all_gather_test(), DataType::Int32, RedOp::None, 3, 30);
  Elements out = output_of(gather, 0);
  std::swap_ranges(out.begin(), out.begin() + 10, out.begin() + 10);
  EXPECT_EQ(verify(gather, out, 0).wrong, 20u);

  const HostJob bcast = make_job(broadcast_test(), DataType::Int32, RedOp::None, 3, 30);
  Elements from_rank0(bcast.inputs[0]);
  EXPECT_EQ(verify(bcast, from_rank0, 0).wrong, 30u);
}

// A reduction that missed one rank is caught.
TEST(CollectiveExpect, AReductionMissingARankIsWrong) {
  for (RedOp op : all_red_ops()) {
    HostJob w = make_job(all_reduce_test(), DataType::Float32, op, 4, 64);
    const Elements correct = output_of(w, 0);
    w.inputs.pop_back();
    w.nranks = 3;  // the sum and the divisor of avg both miss rank 3
    const Elements missing = output_of(w, 0);
    int differ = 0;
    for (std::size_t i = 0; i < correct.size(); ++i) differ += correct[i] != missing[i];
    EXPECT_GT(differ, 0) << name_of(op);
    w.nranks = 4;
    EXPECT_GT(verify(w, missing, 0).wrong, 0u) << name_of(op);
  }
}

}  // namespace
}  // namespace commsweep
