# cmake -D IN=version.hpp.in -D OUT=version.hpp -D SOURCE_DIR=... -D PROJECT_VERSION=... -P WriteVersion.cmake
# Run at every build (src/CMakeLists.txt, target commsweep_version), so that a binary's git hash
# is the commit it was built from, not the one CMake was configured at. configure_file leaves OUT
# untouched when its text is unchanged: nothing is recompiled then.
include("${CMAKE_CURRENT_LIST_DIR}/CommsweepVersion.cmake")
commsweep_git_hash(COMMSWEEP_GIT_HASH "${SOURCE_DIR}")
configure_file("${IN}" "${OUT}" @ONLY)
