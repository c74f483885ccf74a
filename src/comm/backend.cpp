#include "comm/backend.hpp"

#include <stdexcept>
#include <string>

#include "comm/collective_call.hpp"

namespace commsweep {

CollectiveArgs at_offset(const CollectiveArgs& args, std::size_t offset) {
  CollectiveArgs moved = args;
  moved.send = static_cast<const char*>(args.send) + offset;
  moved.recv = static_cast<char*>(args.recv) + offset;
  return moved;
}

const CollectiveCall& collective_call(std::string_view name) {
  for (const CollectiveCall* call : collective_calls()) {
    if (call->name == name) return *call;
  }
  throw std::logic_error("no backend calls for the collective " + std::string(name) +
                         " (src/comm/calls/" + std::string(name) + ".cpp)");
}

}  // namespace commsweep
