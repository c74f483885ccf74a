#!/usr/bin/env bash
# Lays out an installed commsweep the way the container image has it, and the Volcano manifests
# expect it (COMMSWEEP_HOME, /opt/commsweep in volcano/Dockerfile and volcano/base/install.env):
#   PREFIX/bin/commsweep        the binary from BUILD_DIR
#   PREFIX/bin/libcommsweep-nccl-profiler.so  its NCCL profiler plugin (NCCL's choice per row), beside it
#   PREFIX/scripts/             the repository's scripts (pod entrypoints, launchers)
#   PREFIX/results/             schema, baselines (the nightly's `commsweep compare --baseline`)
#   PREFIX/suites/              the shipped suites (COMMSWEEP_SUITE=$(COMMSWEEP_HOME)/suites/default.yaml)
#   PREFIX/topology/            the shapes' NCCL settings and topology files
#                               (scripts/run-baremetal.sh --shape reads topology/<shape>.conf)
# Usage: scripts/install-prefix.sh BUILD_DIR PREFIX
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly REPO

die() { echo "install-prefix: $*" >&2; exit 2; }

main() {
  [ "$#" -eq 2 ] || die "usage: scripts/install-prefix.sh BUILD_DIR PREFIX"
  local build=$1 prefix=$2
  [ -x "$build/commsweep" ] || die "$build/commsweep not found: build first (scripts/build.sh)"
  mkdir -p "$prefix/bin"
  install -m 0755 "$build/commsweep" "$prefix/bin/commsweep"
  # commsweep looks for its NCCL profiler plugin beside itself (docs/collectives.md)
  [ -f "$build/libcommsweep-nccl-profiler.so" ] || die "$build/libcommsweep-nccl-profiler.so not found: build first"
  install -m 0755 "$build/libcommsweep-nccl-profiler.so" "$prefix/bin/libcommsweep-nccl-profiler.so"
  rm -rf "$prefix/scripts" "$prefix/results" "$prefix/suites" "$prefix/topology"
  cp -r "$REPO/scripts" "$prefix/scripts"
  cp -r "$REPO/results" "$prefix/results"
  cp -r "$REPO/suites" "$prefix/suites"
  cp -r "$REPO/topology" "$prefix/topology"
  echo "install-prefix: installed commsweep into $prefix"
}

main "$@"
