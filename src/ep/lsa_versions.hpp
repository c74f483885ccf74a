// Which NCCL library the lsa exchange can run on, given the headers it was built against.
// NCCL's device API is a header library over structures the library fills in
// (ncclDevComm, ncclDevCommRequirements, the resource requirements): their layout changed
// between 2.28 patch releases (2.28.9 added GIN, barrier and LL all-to-all fields that 2.28.3
// lacks), so a library of another version than the headers would read or write them at the
// wrong offsets. The general start-up check refuses only an older library; lsa needs the same.
#pragma once

#include <string>

#include "comm/nccl_version.hpp"

namespace commsweep::ep {

// "" where a binary built against NCCL `headers` (NCCL_VERSION_CODE, e.g. 22809) can use the
// device API of library `library`; else why not, for the user.
inline std::string lsa_version_problem(int headers, int library) {
  const auto text = nccl_version_text;
  if (headers < 22800) {
    return "this build's NCCL headers (" + text(headers) +
           ") have no device API (nccl_device.h, NCCL 2.28 or later): rebuild against NCCL >= 2.28";
  }
  if (library != headers) {
    return "built against NCCL " + text(headers) + " headers but the library in use is " + text(library) +
           "; the device API's structures (ncclDevComm, ncclDevCommRequirements) differ between 2.28 "
           "releases (2.28.9 added fields 2.28.3 lacks), so the library must be " + text(headers) +
           " exactly: point LD_LIBRARY_PATH at it, or rebuild against the library's headers";
  }
  return "";
}

}  // namespace commsweep::ep
