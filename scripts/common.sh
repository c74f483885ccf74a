# shellcheck shell=bash
# What scripts/run.sh and scripts/test.sh share: dependencies, the build, the MPI launcher.
# Sourced, not run. Settings (environment):
#   COMMSWEEP_BUILD_DIR       build directory (default: <repo>/build)
#   COMMSWEEP_BUILD_TYPE      CMake build type (default: RelWithDebInfo, optimised with symbols)
#   CMAKE_CUDA_ARCHITECTURES  GPU architectures to build for (default: "80;90", A100 and H100/H200;
#                             scripts/run.sh: the GPUs present)
#   COMMSWEEP_CUDA=1|0        scripts/run.sh: build the CUDA kernels and the nccl backend, or not
#                             (default: where a GPU and nvcc are found)
#   COMMSWEEP_JOBS            parallel build jobs (default: the number of cores)
#   COMMSWEEP_TEST_JOBS       ctest's -j (default: COMMSWEEP_JOBS + 1; ctest_jobs says why)
#   COMMSWEEP_SKIP_DEPS=1     do not run scripts/install-deps.sh
#   COMMSWEEP_CCACHE=0        do not compile through ccache (default: through it where installed)
#   COMMSWEEP_DEBUG_INFO=lines  RelWithDebInfo with line tables only (-g1: a backtrace's functions,
#                             files and lines, no variables), for builds nobody debugs (CI:
#                             .ci/run); default full (-g)
#   COMMSWEEP_UNITY_BUILD=0   compile each file alone (default: the libraries and the unit tests
#                             in batches of files, a new build folder's COMMSWEEP_UNITY_BUILD=ON)
#   NCCL_ROOT                 the NCCL to build against (and, by the binary's RPATH, run with):
#                             an install's folder (include/nccl.h, lib/libnccl.so.2), or an
#                             unpacked nvidia-nccl-cu13 wheel (its nvidia/nccl folder, or the
#                             folder holding nvidia/nccl). Default: the CUDA toolkit's NCCL

COMMSWEEP_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly COMMSWEEP_REPO
readonly COMMSWEEP_BUILD="${COMMSWEEP_BUILD_DIR:-$COMMSWEEP_REPO/build}"
readonly COMMSWEEP_DEFAULT_CUDA_ARCHS="80;90"

# The precompiled headers (cmake/CommsweepPch.cmake): ccache caches a file compiled with one only
# when told that the header's time stamps and __DATE__/__TIME__ do not matter (ccache's manual,
# "Precompiled headers"); without it each such file compiles uncached. (No effect without ccache.)
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"

say() { echo "${COMMSWEEP_SCRIPT:-commsweep}: $*"; }
die() { echo "${COMMSWEEP_SCRIPT:-commsweep}: $*" >&2; exit 1; }

# scripts/install-deps.sh is idempotent (it installs only what is missing) but needs apt.
# Arguments go to it: none (build and run) or --tests.
install_deps() {
  if [ "${COMMSWEEP_SKIP_DEPS:-0}" = "1" ]; then
    return 0
  fi
  if ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then
    say "no apt here: not installing dependencies (CMake names what is missing)"
    return 0
  fi
  "$COMMSWEEP_REPO/scripts/install-deps.sh" "$@"
}

# nvcc on PATH, else where CUDA_HOME or the usual prefix has it; empty when there is none.
find_nvcc() {
  local candidate
  for candidate in "$(command -v nvcc || true)" "${CUDA_HOME:-}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
}

# configure_commsweep CUDA TESTS [ARCHS [CMAKE_ARG...]]: configures $COMMSWEEP_BUILD with
# COMMSWEEP_CUDA=CUDA (ON: the kernels and the nccl backend, for ARCHS, or when it is empty
# $CMAKE_CUDA_ARCHITECTURES or 80;90) and COMMSWEEP_TESTS=TESTS; the CMAKE_ARGs go to cmake.
configure_commsweep() {
  local cuda=$1 tests=$2 archs=${3:-${CMAKE_CUDA_ARCHITECTURES:-$COMMSWEEP_DEFAULT_CUDA_ARCHS}}
  shift 2
  if [ $# -gt 0 ]; then shift; fi
  command -v cmake >/dev/null || die "cmake not found: run scripts/install-deps.sh"
  local -a cuda_flags=(-DCOMMSWEEP_CUDA=OFF)
  local nvcc
  nvcc=$(find_nvcc)
  if [ "$cuda" = ON ] && [ -n "$nvcc" ]; then
    cuda_flags=(-DCOMMSWEEP_CUDA=ON "-DCMAKE_CUDA_COMPILER=$nvcc" "-DCMAKE_CUDA_ARCHITECTURES=$archs")
    say "building with CUDA ($nvcc, architectures $archs) into $COMMSWEEP_BUILD"
  elif [ "$cuda" = ON ]; then
    say "no nvcc found: building the mpi backend only (COMMSWEEP_CUDA=OFF) into $COMMSWEEP_BUILD"
  else
    say "building the mpi backend only (COMMSWEEP_CUDA=OFF) into $COMMSWEEP_BUILD"
  fi
  local -a nccl_flags=()
  if [ -n "${NCCL_ROOT:-}" ]; then
    [ -d "$NCCL_ROOT" ] || die "NCCL_ROOT=$NCCL_ROOT: no such folder"
    # Forget an NCCL found by an earlier configure of this build folder: NCCL_ROOT decides.
    nccl_flags=("-DNCCL_ROOT=$NCCL_ROOT" -UNCCL_INCLUDE_DIR -UNCCL_LIBRARY)
    say "building against the NCCL in NCCL_ROOT=$NCCL_ROOT"
  fi
  local -a launcher_flags=() debug_flags=()
  mapfile -t launcher_flags < <(compiler_launcher_flags)
  debug_info_flags >/dev/null  # a bad value dies here, not in the substitution below
  mapfile -t debug_flags < <(debug_info_flags)
  local -a generator_flags=()
  mapfile -t generator_flags < <(generator_flags "$COMMSWEEP_BUILD")
  cmake -S "$COMMSWEEP_REPO" -B "$COMMSWEEP_BUILD" "${generator_flags[@]}" \
    "-DCMAKE_BUILD_TYPE=${COMMSWEEP_BUILD_TYPE:-RelWithDebInfo}" "-DCOMMSWEEP_TESTS=$tests" \
    "-DCOMMSWEEP_UNITY_BUILD=$(unity_build)" \
    "${cuda_flags[@]}" "${nccl_flags[@]}" "${launcher_flags[@]}" "${debug_flags[@]}" "$@"
}

# generator_flags FOLDER: Ninja for a new build folder where it is installed (install-deps.sh
# installs it; it keeps a log of every step's time, FOLDER/.ninja_log, which docs/building.md's
# tables come from); nothing for a configured folder, which keeps its generator.
generator_flags() {
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    echo "-GNinja"
  fi
}

# ON unless COMMSWEEP_UNITY_BUILD says 0/OFF: the scripts' builds compile in batches of files
# (docs/building.md), as CI does; an edit then recompiles its batch.
unity_build() {
  case "${COMMSWEEP_UNITY_BUILD:-1}" in
    0 | OFF | off) echo OFF ;;
    *) echo ON ;;
  esac
}

# debug_info_flags: with COMMSWEEP_DEBUG_INFO=lines, RelWithDebInfo's flags with -g1 for -g (gcc
# and clang read it as line tables only), one CMake flag a line; nothing by default. Full debug
# info is most of a build's work here: one heavy unity batch (report/) took 20.1 s of CPU with -g
# and 14.2 s with -g1 (gcc 12), 28.5 s and 25.2 s under clang 14 with the sanitizers, and its
# object shrank from 17 MB to 4.5 MB, which the links of every test program read. No test reads
# debug info; sanitizer reports and gdb's backtraces still name functions, files and lines.
debug_info_flags() {
  case "${COMMSWEEP_DEBUG_INFO:-full}" in
    full) ;;
    lines)
      local language
      for language in C CXX; do echo "-DCMAKE_${language}_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"; done
      ;;
    *) die "COMMSWEEP_DEBUG_INFO=${COMMSWEEP_DEBUG_INFO}: not full or lines" ;;
  esac
}

# compiler_launcher_flags: ccache as the compilers' launcher where it is installed (install-deps.sh
# --tests installs it) and COMMSWEEP_CCACHE is not 0, one CMake flag a line. CI builds commsweep
# twice with gcc (.ci/run: the main build, then against the newest NCCL): through one cache the
# second compiles only the files whose preprocessed text differs, those that include nccl.h or the
# kernels' architectures, instead of all of them (.ci/run sets where the cache lives).
compiler_launcher_flags() {
  if [ "${COMMSWEEP_CCACHE:-1}" = 0 ] || ! command -v ccache >/dev/null; then
    return 0
  fi
  local language
  for language in C CXX CUDA; do
    echo "-DCMAKE_${language}_COMPILER_LAUNCHER=ccache"
  done
}

# build_commsweep [TARGET...]: configures $COMMSWEEP_BUILD for everything (the tests, and CUDA
# where nvcc is found) and builds TARGET (default: all).
build_commsweep() {
  configure_commsweep ON ON
  local -a targets=()
  if [ $# -gt 0 ]; then targets=(--target "$@"); fi
  cmake --build "$COMMSWEEP_BUILD" -j "${COMMSWEEP_JOBS:-$(nproc)}" "${targets[@]}"
}

# ctest_jobs: ctest's -j, COMMSWEEP_TEST_JOBS, else one more than COMMSWEEP_JOBS (the cores). The MPI tests declare
# their ranks as PROCESSORS, so that with -j equal to the cores each runs alone, and the tests
# that mostly wait (a watchdog's deadline, a signal's moment: tests/waiting_tests.cmake) declare
# one: the extra slot lets one of them wait beside a test that computes, where it used to hold
# both cores idle (on CI's 2 cores, about 300 s of waiting ran alone; docs/testing.md#ci).
ctest_jobs() {
  echo "${COMMSWEEP_TEST_JOBS:-$((${COMMSWEEP_JOBS:-$(nproc)} + 1))}"
}

# The compute capabilities of the GPUs present as CMake architectures ("90", "80;90"); empty
# without a driver.
gpu_architectures() {
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | sort -u |
    paste -sd ';' || true
}

# GPUs the NVIDIA driver lists; 0 without a driver.
gpu_count() {
  if ! command -v nvidia-smi >/dev/null; then
    echo 0
    return 0
  fi
  nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true
}

# mpirun plus the flags Open MPI needs here: --allow-run-as-root when root (containers, CI),
# --oversubscribe when there are more ranks than cores.
mpirun_command() {
  local ranks=$1
  local -a cmd=(mpirun -np "$ranks")
  if mpirun --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    if [ "$(id -u)" -eq 0 ]; then
      cmd+=(--allow-run-as-root)
    fi
    if [ "$ranks" -gt "$(nproc)" ]; then
      cmd+=(--oversubscribe)
    fi
  fi
  printf '%s\n' "${cmd[@]}"
}
