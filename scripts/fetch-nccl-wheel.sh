#!/usr/bin/env bash
# Downloads (once) PyPI's nvidia-nccl-cu13 wheel of NCCL and unpacks its headers and library;
# prints the folder that holds nvidia/nccl/{include,lib}, which NCCL_ROOT accepts
# (cmake/FindNCCL.cmake, scripts/build.sh). Used by scripts/test-nccl-newest.sh (CI's second
# build) and volcano/Dockerfile (the image's NCCL).
#   scripts/fetch-nccl-wheel.sh [VERSION]     VERSION: e.g. 2.32.3; none: the newest pip finds
# Settings: NCCL_WHEEL_CACHE, where wheels are unpacked, one folder per version (default:
# <repo>/.cache/nccl, ignored by git); a version already unpacked there is not downloaded again.
set -euo pipefail

# shellcheck source=scripts/wheel.sh
source "$(dirname "${BASH_SOURCE[0]}")/wheel.sh"

readonly WHEEL=nvidia-nccl-cu13
CACHE="${NCCL_WHEEL_CACHE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache/nccl}"
readonly CACHE

die() { echo "fetch-nccl-wheel: $*" >&2; exit 1; }

main() {
  local wanted=${1:-} download wheel version folder
  if [ -n "$wanted" ] && [ -e "$CACHE/$wanted/nvidia/nccl/include/nccl.h" ]; then
    echo "$CACHE/$wanted"
    return 0
  fi
  mkdir -p "$CACHE"
  download=$(mktemp -d "$CACHE/download.XXXXXX")
  # shellcheck disable=SC2064  # the folder is known now
  trap "rm -rf '$download'" EXIT
  wheel_download "$download" "$WHEEL${wanted:+==$wanted}" >&2 ||
    die "pip could not download $WHEEL${wanted:+==$wanted} (no network, or no such version)"
  wheel=$(find "$download" -maxdepth 1 -name 'nvidia_nccl_cu13-*.whl' | head -n 1)
  [ -n "$wheel" ] || die "pip downloaded no $WHEEL wheel"
  version=$(basename "$wheel" | cut -d- -f2)
  folder="$CACHE/$version"
  if [ ! -e "$folder/nvidia/nccl/include/nccl.h" ]; then
    rm -rf "$folder.part"
    # Only the headers and the library: the rest of the wheel is device bitcode for JIT users.
    wheel_tree "$wheel" "$folder.part" nvidia/nccl/include/ nvidia/nccl/lib/libnccl.so.2
    [ -e "$folder.part/nvidia/nccl/lib/libnccl.so.2" ] || die "$(basename "$wheel") holds no nvidia/nccl/lib/libnccl.so.2"
    rm -rf "$folder"
    mv "$folder.part" "$folder"
  fi
  echo "$folder"
}

main "$@"
