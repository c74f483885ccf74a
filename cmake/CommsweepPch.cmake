# Precompiled headers (COMMSWEEP_PCH, on by default; docs/building.md#where-the-time-goes):
# nlohmann/json and the C++ library's containers and streams, and per target the other heavy
# headers it uses (Boost.Program_options for cli/, GoogleTest for the unit tests), are parsed
# once instead of once a file or batch. The headers are only those every layer may include
# (src/layers.txt): none is MPI's, NCCL's or CUDA's, so a pure layer's compile still cannot find
# them (tests/layers). Each file still includes what it uses: -DCOMMSWEEP_PCH=OFF compiles the
# same sources.
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

# commsweep_precompile_shared(TARGET...): the TARGETs (src/'s libraries) share one precompiled
# header of the common headers, commsweep_pch's, where the compiler accepts one made with other
# definitions (gcc: a -D the headers never read does not matter). clang refuses a PCH whose macros
# differ from the command line's (the libraries above comm define OMPI_SKIP_MPICXX, say), so with
# clang each gets its own. One instead of one per library: 2 precompiled headers in a build of
# the commsweep target instead of 17 (their time not yet measured on an idle machine).
function(commsweep_precompile_shared)
  if(NOT COMMSWEEP_PCH)
    return()
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    foreach(_target IN LISTS ARGN)
      commsweep_precompile(${_target})
    endforeach()
    return()
  endif()
  if(NOT TARGET commsweep_pch)
    # The libraries' flags (src/CMakeLists.txt, commsweep_layer); an empty file to compile.
    file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/commsweep_pch.cpp" "// the precompiled header's own file\n")
    add_library(commsweep_pch OBJECT "${CMAKE_CURRENT_BINARY_DIR}/commsweep_pch.cpp")
    target_compile_options(commsweep_pch PRIVATE -Wall -Wextra -ffp-contract=off)
    target_link_libraries(commsweep_pch PRIVATE nlohmann_json::nlohmann_json)
    commsweep_precompile(commsweep_pch)
  endif()
  foreach(_target IN LISTS ARGN)
    target_precompile_headers(${_target} REUSE_FROM commsweep_pch)
  endforeach()
endfunction()
