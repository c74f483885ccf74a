#!/usr/bin/env bash
# manifests.dockerfile: lints volcano/Dockerfile with hadolint (every rule, no exceptions), and
# proves the linter bites: a Dockerfile with planted mistakes must fail with their rule codes.
# hadolint: $COMMSWEEP_HADOLINT, else .deps/hadolint/hadolint (scripts/fetch-hadolint.sh, run by
# scripts/install-deps.sh --tests), else PATH; absent: skipped (exit 77) with the reason.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
planted=""  # the planted Dockerfile, removed at exit
trap 'rm -f "$planted"' EXIT

find_hadolint() {
  local candidate
  for candidate in "${COMMSWEEP_HADOLINT:-}" "$repo/.deps/hadolint/hadolint" "$(command -v hadolint || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
}

main() {
  local hadolint out rc=0
  hadolint=$(find_hadolint)
  if [ -z "$hadolint" ]; then
    echo "SKIP: hadolint not found (scripts/fetch-hadolint.sh fetches it into .deps/hadolint)"
    exit 77
  fi
  echo "$("$hadolint" --version): $repo/volcano/Dockerfile"
  "$hadolint" "$repo/volcano/Dockerfile"
  # The planted mistakes: an untagged base image (DL3006), cd instead of WORKDIR (DL3003),
  # apt-get install with recommends (DL3015).
  planted=$(mktemp)
  printf 'FROM ubuntu\nRUN cd /tmp && apt-get update && apt-get install -y curl && rm -rf /var/lib/apt/lists/*\n' >"$planted"
  out=$("$hadolint" "$planted") || rc=$?
  local code
  for code in DL3006 DL3003 DL3015; do
    if [ "$rc" -eq 0 ] || ! grep -q "$code" <<<"$out"; then
      echo "FAIL: hadolint did not report $code on the planted Dockerfile (exit $rc):"
      echo "$out"
      exit 1
    fi
  done
  echo "ok: volcano/Dockerfile lints clean; the planted mistakes were reported (DL3006 DL3003 DL3015)"
}

main "$@"
