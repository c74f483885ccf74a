#!/usr/bin/env bash
# Builds commsweep a second time, with the kernels, against the newest NCCL that PyPI's
# nvidia-nccl-cu13 wheel offers (headers and library both come in the wheel), and runs the unit
# tests against that build: the code must compile against every NCCL a cluster may carry, from
# the CUDA toolkit's (the main build) to the newest. A CI part (.ci/run); no GPU needed.
#
# Settings (environment), besides scripts/common.sh's:
#   NCCL_NEWEST_VERSION   the wheel's version (default: the newest pip finds); e.g. 2.32.3
#   NCCL_WHEEL_CACHE      where wheels are unpacked (scripts/fetch-nccl-wheel.sh)
#   COMMSWEEP_BUILD_DIR   the build folder (default: <repo>/build-nccl-newest)
#   CMAKE_CUDA_ARCHITECTURES  default 90 here: one architecture compiles every kernel against
#                         the newest headers (the main build's "80;90" would double the time)
set -euo pipefail

readonly COMMSWEEP_SCRIPT=test-nccl-newest
export CMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}"
export COMMSWEEP_BUILD_DIR="${COMMSWEEP_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-nccl-newest}"
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The NCCL_VERSION that nccl.h of a folder declares: "2.32.3".
header_version() {
  local header=$1/nvidia/nccl/include/nccl.h
  printf '%s.%s.%s\n' "$(awk '/^#define NCCL_MAJOR /{print $3}' "$header")" \
    "$(awk '/^#define NCCL_MINOR /{print $3}' "$header")" "$(awk '/^#define NCCL_PATCH /{print $3}' "$header")"
}

main() {
  local start=$SECONDS
  install_deps --tests
  [ -n "$(find_nvcc)" ] || die "no nvcc: the newest-NCCL build needs the CUDA toolkit (the kernels are the point)"
  local folder version found libraries
  folder=$("$COMMSWEEP_REPO/scripts/fetch-nccl-wheel.sh" "${NCCL_NEWEST_VERSION:-}")
  version=$(header_version "$folder")
  say "NCCL $version from PyPI's nvidia-nccl-cu13, unpacked in $folder"
  NCCL_ROOT="$folder" build_commsweep commsweep commsweep_unit_tests commsweep_pairs_bench
  found=$(sed -n 's/^FIND_PACKAGE_MESSAGE_DETAILS_NCCL:INTERNAL=.*\[v\([0-9.]*\)(.*/\1/p' "$COMMSWEEP_BUILD/CMakeCache.txt")
  [ "$found" = "$version" ] || die "CMake found NCCL '$found', not the wheel's $version (NCCL_ROOT=$folder)"
  # The binaries run against the wheel's library (their RPATH): the unit tests load it.
  # (ldd's output held first: grep -q would end the pipe early, a failure under pipefail.)
  libraries=$(ldd "$COMMSWEEP_BUILD/commsweep")
  grep -qF "$folder/nvidia/nccl/lib/libnccl.so.2" <<<"$libraries" ||
    die "$COMMSWEEP_BUILD/commsweep does not load the wheel's libnccl.so.2: $(grep nccl <<<"$libraries")"
  local tested=$SECONDS
  (cd "$COMMSWEEP_BUILD" && ctest -L unit --output-on-failure -j "${COMMSWEEP_JOBS:-$(nproc)}")
  say "commsweep built against NCCL $version (headers and library of the wheel): unit tests passed"
  say "finished in $((SECONDS - start)) s: wheel and build $((tested - start)) s, tests $((SECONDS - tested)) s"
}

main "$@"
