#include "cli/guarded.hpp"

#include <cstdio>
#include <new>
#include <string>

#include "runtime/termination.hpp"
#include "runtime/world.hpp"

namespace commsweep {

namespace {

// Ends the job for an error this rank alone met (World::fail: rank 0 keeps what was measured).
[[noreturn]] void fail(World& world, const RankContext& ctx, const Error& e) {
  world.fail(error_line(world.rank(), world.host(), ctx.device, e), e.what(), e.exit_code());
}

}  // namespace

int refuse_usage(World& world, const Error& e) {
  world.set_last_words(nullptr);
  on_termination(nullptr);
  if (world.rank() == 0) std::fprintf(stderr, "commsweep: %s\n", e.what());
  return e.exit_code();
}

int guarded(World& world, RankContext& context, const std::function<int()>& command) {
  try {
    const int rc = command();
    world.set_last_words(nullptr);
    on_termination(nullptr);
    return rc;
  } catch (const Error& e) {
    // Every rank reaches the same verdict (the same arguments; an allocation failure is
    // agreed over MPI by the sweep): end normally, rank 0 says why (and, out of memory,
    // keeps the sizes measured before it).
    if (e.kind() == ErrorKind::Usage) return refuse_usage(world, e);
    if (e.kind() == ErrorKind::OutOfMemory) {
      if (world.rank() == 0) {
        std::fprintf(stderr, "commsweep: out of memory: %s\n", e.what());
        world.say_last_words(std::string(name_of(e.kind())), e.what());
      }
      world.set_last_words(nullptr);
      on_termination(nullptr);
      return e.exit_code();
    }
    fail(world, context, e);
  } catch (const std::bad_alloc& e) {
    // An allocation outside the agreed buffer allocation: this rank alone knows; end the job.
    fail(world, context, Error(ErrorKind::OutOfMemory, e.what()));
  } catch (const std::exception& e) {
    fail(world, context, Error(ErrorKind::Runtime, e.what()));
  }
}

}  // namespace commsweep
