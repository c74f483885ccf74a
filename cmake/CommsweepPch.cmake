# Precompiled headers (COMMSWEEP_PCH, on by default; docs/building.md#where-the-time-goes):
# nlohmann/json, the C++ library's containers and streams, and per target the other heavy
# headers it uses (Boost.Program_options for settings/ and cli/, GoogleTest for the unit tests)
# are parsed once a target instead of once a file or batch. The headers are only those every
# layer may include (src/layers.txt): none is MPI's, NCCL's or CUDA's, so a pure layer's compile
# still cannot find them (tests/layers). Each file still includes what it uses: a build with
# -DCOMMSWEEP_PCH=OFF (plain cmake users' choice) compiles the same sources.
option(COMMSWEEP_PCH "Precompile the heavy headers (nlohmann/json, the C++ library, Boost, GoogleTest)" ON)

set(COMMSWEEP_PCH_HEADERS
  <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional> <set> <sstream>
  <string> <utility> <vector>
  <nlohmann/json.hpp>)

# commsweep_precompile(TARGET [HEADER...]): TARGET's C++ files compile with the common headers
# above and the HEADERs given, precompiled once for TARGET.
function(commsweep_precompile target)
  if(COMMSWEEP_PCH)
    target_precompile_headers(${target} PRIVATE ${COMMSWEEP_PCH_HEADERS} ${ARGN})
  endif()
endfunction()
