#!/usr/bin/env bash
# Fetches nvml.h (NVIDIA's NVML header) into .deps/nvml/include/ for `commsweep health`.
# The CUDA toolkit here (/usr/local/cuda) ships no nvml.h; PyPI's nvidia-nvml-dev does, in the
# version that matches the toolkit. Only the header is used: libnvidia-ml.so.1 comes with the
# GPU driver and is opened at run time (src/health/nvml_loader.cpp), so the build needs no
# driver. Idempotent; without network or pip it says so and exits 0 (the build then reads no
# GPU, and `commsweep health` says why).
set -euo pipefail
# shellcheck source=scripts/wheel.sh
source "$(dirname "$0")/wheel.sh"

# nvidia-nvml-dev 13.0.87 is the NVML of CUDA 13.0 (the toolkit the project builds with).
readonly VERSION="${COMMSWEEP_NVML_DEV_VERSION:-13.0.87}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
readonly ROOT
readonly DEST="$ROOT/.deps/nvml"
work=""  # the download folder, removed at exit

main() {
  if [ -f "$DEST/include/nvml.h" ]; then
    echo "fetch-nvml-header: $DEST/include/nvml.h already there"
    return 0
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if ! wheel_download "$work" "nvidia-nvml-dev==$VERSION" >"$work/pip.log" 2>&1; then
    echo "fetch-nvml-header: could not download nvidia-nvml-dev==$VERSION (no pip or no network):" \
         "building without NVML; see $work/pip.log" >&2
    tail -n 3 "$work/pip.log" >&2 || true
    return 0
  fi
  mkdir -p "$DEST/include"
  local wheel
  wheel=$(find "$work" -maxdepth 1 -name '*.whl' | head -n 1)
  wheel_file "$wheel" /nvml.h "$DEST/include/nvml.h"
  echo "fetch-nvml-header: $DEST/include/nvml.h (nvidia-nvml-dev $VERSION)"
}

main "$@"
