# Instrumentation for the hardening builds; each is a build directory of its own, never the
# release build. Added before any target so that the library, the CLI and the tests all carry it.
#
# COMMSWEEP_SANITIZE (g++ or clang): AddressSanitizer + UndefinedBehaviorSanitizer. UBSan does
# not recover: the first undefined behaviour ends the process with an error, so a test fails.
# COMMSWEEP_FUZZ (clang only): the same sanitizers plus libFuzzer's coverage on every object;
# tests/fuzz links the fuzzer's main into each target.
if(COMMSWEEP_SANITIZE OR COMMSWEEP_FUZZ)
  if(COMMSWEEP_CUDA)
    message(FATAL_ERROR "COMMSWEEP_SANITIZE / COMMSWEEP_FUZZ instrument host code only: "
                        "configure with -DCOMMSWEEP_CUDA=OFF")
  endif()
  set(COMMSWEEP_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
                                -fno-omit-frame-pointer)
  add_compile_options(${COMMSWEEP_SANITIZER_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()
if(COMMSWEEP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "COMMSWEEP_FUZZ needs clang (libFuzzer): configure with CC=clang "
                        "CXX=clang++ (scripts/fuzz.sh does)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
