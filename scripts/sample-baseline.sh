#!/usr/bin/env bash
# The shipped baseline, results/baselines/h200x4-nvlink.json, made again from the three sample
# results in results/samples by `commsweep baseline`, so that it has every field and rule the
# binary writes today (the README's run 5 and docs/regressions.md judge the samples against it).
#   scripts/sample-baseline.sh [BIN]           rewrite it (BIN: default build/commsweep)
#   scripts/sample-baseline.sh --check [BIN [FILE]]
#                            exit 1, naming the first difference, when BIN would write another
#                            file than FILE (default: the shipped one; ctest docs.baseline_current,
#                            and docs.baseline_planted with one doctored value)
# --check compares everything but provenance.created_at and provenance.git_hash, which say when
# and from which commit the file was made.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly REPO
readonly BASELINE=results/baselines/h200x4-nvlink.json
readonly SAMPLES=(results/samples/h200x4-all-float-bf16.json results/samples/h200x4-all_reduce-8B-8G-x3.json
                  results/samples/h200x4-ep-4096.json)
# The samples are one night each, of three commands with other settings (--allow-mixed); the
# floor is about 10% below the 4 x H200 NVLink all_reduce figure of docs/figures.md (365 GB/s at 8 GiB).
readonly OPTIONS=(--mode nvlink --floor all_reduce:1G:330 --allow-mixed --note "Made with commsweep baseline \
from the three sample results in results/samples (one night each on the lent nvidia-h200-x4 machine, 4 x H200 \
on NVSwitch, nccl backend): a baseline to show the format and to judge those commands; a production baseline \
wants several nights.")

say() { echo "sample-baseline: $*"; }

# Runs `commsweep baseline` in folder DIR (holding results/samples), writing DIR/$BASELINE.
make_baseline() {
  local bin=$1 dir=$2
  (cd "$dir" && "$bin" baseline "${SAMPLES[@]}" -o "$BASELINE" "${OPTIONS[@]}" >/dev/null)
}

# The first difference between two baselines, but for when and where they were made; empty when none.
difference() {
  python3 - "$1" "$2" <<'EOF'
import json, sys

def without_stamp(path):
    with open(path) as f:
        doc = json.load(f)
    for key in ("created_at", "git_hash"):
        doc["provenance"].pop(key, None)
    return doc

def first(a, b, where="$"):
    if type(a) is not type(b):
        return f"{where}: {json.dumps(a)[:80]} here, {json.dumps(b)[:80]} made now"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}.{key}: only {'here' if key in a else 'in the one made now'}"
            found = first(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return ""
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items here, {len(b)} made now"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first(x, y, f"{where}[{i}]")
            if found:
                return found
        return ""
    return "" if a == b else f"{where}: {json.dumps(a)[:80]} here, {json.dumps(b)[:80]} made now"

print(first(without_stamp(sys.argv[1]), without_stamp(sys.argv[2])))
EOF
}

main() {
  local check=0
  case "${1:-}" in
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0" | sed '/^!/d'; return 0 ;;
    -*) [ "$1" = --check ] || { echo "sample-baseline: unknown flag '$1' (--check, or --help)" >&2; exit 2; } ;;
  esac
  if [ "${1:-}" = --check ]; then
    check=1
    shift
  fi
  local bin=${1:-$REPO/build/commsweep} shipped=${2:-$REPO/$BASELINE}
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  [ -x "$bin" ] || { echo "sample-baseline: $bin is not an executable: build commsweep first" >&2; exit 2; }
  if [ "$check" = 0 ]; then
    rm -f "$REPO/$BASELINE"  # `commsweep baseline -o` writes a new file atomically
    make_baseline "$bin" "$REPO"
    say "wrote $BASELINE"
    return 0
  fi
  SCRATCH=$(mktemp -d)
  trap 'rm -rf "$SCRATCH"' EXIT
  local scratch=$SCRATCH
  mkdir -p "$scratch/results/samples" "$scratch/results/baselines"
  cp "${SAMPLES[@]/#/$REPO/}" "$scratch/results/samples/"
  make_baseline "$bin" "$scratch"
  local differs
  differs=$(difference "$shipped" "$scratch/$BASELINE")
  if [ -n "$differs" ]; then
    echo "sample-baseline: $shipped is not what $bin makes from the samples: $differs" >&2
    echo "sample-baseline: run scripts/sample-baseline.sh and commit the result" >&2
    exit 1
  fi
  say "$shipped is current (what $bin makes from results/samples)"
}

main "$@"
