// The buffers a collective sweep allocates at its largest, against the memory the backend has
// for them (Backend::memory_room): a sweep that cannot fit is refused before its first table
// (out of memory, exit 7), in the units sizes are typed in (powers of 1024), instead of after its
// header, at the allocation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/backend.hpp"
#include "core/sweep_config.hpp"
#include "runtime/world.hpp"
#include "sweep/sweep_test.hpp"

namespace commsweep {

// The largest pair of buffers of a sweep, per rank, and what needs it.
struct SweepBuffers {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
  std::uint64_t message = 0;  // the largest message of that test and type (the size column)
  std::string what;           // "all_reduce float"
  std::uint64_t total() const { return send + recv; }
};
// Over TESTS and the config's types, as Sweep::run plans and allocates them on NRANKS ranks.
SweepBuffers largest_buffers(const std::vector<const CollectiveTest*>& tests, const SweepConfig& config, int nranks);

// The largest -e, a power of two, whose buffers fit in ROOM bytes (NEED's share of buffer per
// message byte); 0 when not even one byte would.
std::uint64_t largest_fitting_size(const SweepBuffers& need, std::uint64_t room);

// A rank whose memory is too small for the buffers.
struct ShortRank {
  int rank = 0;
  std::string host;
  MemoryRoom room;
};
// The one message: "-e/--maxbytes 10T: all_reduce float up to 8 TiB needs 16 TiB of buffers per
// rank (send 8 TiB, receive 8 TiB); rank 0 (host vm) has 11.5 GiB, its share of ...; too little
// also on rank 1 (host vm). Lower -e/--maxbytes (-e 4G fits) or run fewer ranks per host; ...":
// the rank with the least room in full (it decides what fits), every other short rank by its host
// (8 of them, then a count). NAMED: the setting -e is ("-e/--maxbytes", or a suite's key
// "max_bytes", which then says "max_bytes 4G fits").
std::string buffers_do_not_fit(const SweepBuffers& need, const SweepConfig& config, const std::vector<ShortRank>& ranks,
                               const std::string& named);

// Collective: every rank's MINE against NEED; where one is short, an OutOfMemory Error on every
// rank (rank 0's is the message above, naming each such rank).
void require_buffers_fit(World& world, const SweepBuffers& need, const MemoryRoom& mine, const SweepConfig& config,
                         const std::string& named);

}  // namespace commsweep
