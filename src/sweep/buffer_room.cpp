#include "sweep/buffer_room.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/sizes.hpp"
#include "core/strings.hpp"
#include "sweep/sweep.hpp"

namespace commsweep {

SweepBuffers largest_buffers(const std::vector<const CollectiveTest*>& tests, const SweepConfig& config, int nranks) {
  SweepBuffers largest;
  const auto sizes = size_list(config);
  for (const CollectiveTest* test : tests) {
    for (DataType type : config.types) {
      const auto planned = plan_sizes(*test, sizes, type, nranks);
      const BufferBytes bytes = sweep_buffer_bytes(planned, type, config.buffers);
      if (bytes.send + bytes.recv <= largest.total()) continue;
      largest.send = bytes.send;
      largest.recv = bytes.recv;
      largest.message = planned.empty() ? 0 : planned.back().bytes;
      largest.what = std::string(test->name) + " " + std::string(name_of(type));
    }
  }
  return largest;
}

std::uint64_t largest_fitting_size(const SweepBuffers& need, std::uint64_t room) {
  if (need.message == 0 || need.total() == 0) return 0;
  // Buffers grow with the largest message: NEED's bytes of buffer per byte of message.
  const double per_byte = static_cast<double>(need.total()) / static_cast<double>(need.message);
  const double fits = static_cast<double>(room) / per_byte;
  std::uint64_t size = 0;
  for (std::uint64_t p = 1; p != 0 && static_cast<double>(p) <= fits; p <<= 1) size = p;
  return size;
}

namespace {

constexpr std::size_t kBufferRoomRanksNamed = 8;  // the short ranks named besides the shortest

// How the message names the setting when it says what fits: "-e 4G" for "-e/--maxbytes", "max_bytes
// 4G" for a suite's key.
std::string buffer_room_setting_value(const std::string& named, std::uint64_t bytes) {
  const std::string setting = named.rfind('-', 0) == 0 ? named.substr(0, named.find('/')) : named;
  return setting + " " + compact_size(bytes);
}

}  // namespace

std::string buffers_do_not_fit(const SweepBuffers& need, const SweepConfig& config, const std::vector<ShortRank>& ranks,
                               const std::string& named) {
  std::string text = named + " " + compact_size(config.max_bytes) + ": " + need.what + " up to " +
                     binary_size_text(need.message) + " needs " + binary_size_text(need.total()) +
                     " of buffers per rank (send " + binary_size_text(need.send) + ", receive " +
                     binary_size_text(need.recv) + ")";
  if (!ranks.empty()) {
    // The rank with the least room decides what fits and is said in full; every other rank short
    // is named with its host alone, the first kBufferRoomRanksNamed of them (a job of 64 ranks
    // would otherwise say the same figures 64 times).
    const auto least = std::min_element(ranks.begin(), ranks.end(), [](const ShortRank& a, const ShortRank& b) {
      return a.room.bytes < b.room.bytes;
    });
    text += "; rank " + std::to_string(least->rank) + " (host " + least->host + ") has " +
            binary_size_text(least->room.bytes) + ", " + least->room.what;
    std::size_t named_others = 0;
    for (const ShortRank& r : ranks) {
      if (&r == &*least || named_others == kBufferRoomRanksNamed) continue;
      text += (named_others++ == 0 ? "; too little also on rank " : ", rank ") + std::to_string(r.rank) + " (host " +
              r.host + ")";
    }
    if (ranks.size() - 1 > named_others) text += " and " + std::to_string(ranks.size() - 1 - named_others) + " more";
    const std::uint64_t fits = largest_fitting_size(need, least->room.bytes);
    text += ". Lower " + named;
    if (fits >= config.min_bytes && fits > 0) text += " (" + buffer_room_setting_value(named, fits) + " fits)";
  } else {
    text += ". Lower " + named;
  }
  return text + " or run fewer ranks per host; nothing was measured";
}

void require_buffers_fit(World& world, const SweepBuffers& need, const MemoryRoom& mine, const SweepConfig& config,
                         const std::string& named) {
  const bool short_here = mine.bytes > 0 && need.total() > mine.bytes;
  const Phase phase{"the buffers' memory check", Deadline::after(config.timeout_s)};
  // "BYTES WHAT" from each short rank, "" from the others.
  const auto all = world.gather(short_here ? std::to_string(mine.bytes) + " " + mine.what : std::string(), phase);
  if (world.sum(short_here ? 1 : 0, phase) == 0) return;
  std::vector<ShortRank> ranks;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    const auto space = all[r].find(' ');
    ranks.push_back({static_cast<int>(r), world.hosts_by_rank().at(r),
                     {std::stoull(all[r].substr(0, space)), all[r].substr(space + 1)}});
  }
  throw Error(ErrorKind::OutOfMemory,
              world.rank() == 0 ? buffers_do_not_fit(need, config, ranks, named)
                                : named + " " + compact_size(config.max_bytes) + ": the buffers do not fit on every rank");
}

}  // namespace commsweep
