#!/usr/bin/env bash
# Issue 2 probe: why does commsweep time an all_reduce 2-4 us faster than nccl-tests 2.19 at
# 1-8 MiB on 4 x H200 (Ring, LL, 24 channels in both), while the two agree from 16 MiB up?
#
# The leading hypothesis (H1): nccl-tests moves its send and receive pointers by one message
# size on every iteration, across the buffer it allocated for -e (startColl's "shift"), so each
# of its 20 timed iterations reads input that is not in the GPU's L2 cache (50 MB on an H200);
# commsweep issued every iteration on the same addresses, whose 2 x 2 MiB stay in L2. LL is
# load-latency bound, so cold input costs microseconds there and nothing once the larger
# protocols stream from 16 MiB up. Rivals: H2 the allocation kind (nccl-tests: ncclMemAlloc,
# i.e. cuMem; commsweep: cudaMalloc), H3 buffer registration or another kernel (symmetric).
#
# commsweep now moves its pointers as nccl-tests does (--buffers cold, the default) or keeps
# them (--buffers warm, the old behaviour). This probe runs both, interleaved:
#   all_reduce -b 1M -e 1G -f 2 -c 1 -N 3 -w 5 -n 20 --buffers cold|warm, ROUNDS rounds
# and summary.txt gives per size and mode the median out-of-place time and busbw over every
# cycle of every round. H1 -> cold is 2-4 us slower than warm at 1-8 MiB (about nccl-tests'
# 30.5 us at 2 MiB), equal within 1% from 32 MiB up.
#
#   scripts/gpu/issue2-probe.sh [COMMSWEEP_BINARY]        (default build-gpu/commsweep)
# Environment:
#   OUT              log folder (default ./issue2-probe-logs)
#   ROUNDS           rounds of (cold, warm) runs (default 2)
#   NCCL_TESTS_BIN   an all_reduce_perf built with MPI=1; optional: with it (or NCCL_TESTS_SRC)
#                    nccl-tests' own runs below are made too, and NCCL's choices are logged
#   NCCL_TESTS_SRC   an nccl-tests checkout to build all_reduce_perf from (sm_90 only; the
#                    build takes 1-3 minutes of the budget; NCCL_HOME and MPI_HOME are derived
#                    from LD_LIBRARY_PATH and mpicc unless set)
#   BUDGET_S         seconds the whole probe may take (default 170 without nccl-tests, 420
#                    with); a step that no longer fits is skipped and said so in summary.txt
# LD_LIBRARY_PATH must already point at NCCL 2.28.9 (set by the caller). NCCL_DEBUG and its
# companions are unset for the measured runs (logging costs time); only *_debug sets them.
#
# nccl-tests runs (optional; out-of-place time at 2 MiB, 8 MiB in brackets, as measured before):
#   nt_rotate          nccl-tests, moving offset over 20 slices of a 1 GiB buffer: ~30.5 (~62)
#   nt_fixed_<size>    nccl-tests with -b = -e: its offset never moves (steps = 1).
#                      H1 -> ~= commsweep warm; H2 -> ~= nt_rotate
#   nt_span16m         nccl-tests -b 1M -e 16M: every slice set <= 32 MiB, fits in L2.
#                      H1 -> close to nt_fixed, 16 MiB equal to all others
#   nt_rotate_nocumem  nccl-tests moving offset with cudaMalloc'd buffers (NCCL_CUMEM_ENABLE=0
#                      makes ncclMemAlloc fall back). H1 -> ~= nt_rotate
#   *_debug            NCCL_DEBUG=INFO, subsystems INIT,TUNING,REG: the Algo/proto/channel
#                      line per size in both tools; H3 would show "register" or "[Symmetric]"
#                      lines, or differing choices
set -euo pipefail

readonly BIN=${1:-build-gpu/commsweep}
readonly LOGDIR=${OUT:-./issue2-probe-logs}
readonly NP=${NP:-4}
readonly ROUNDS=${ROUNDS:-2}
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
# The figures compared: 20 timed after 5 warm-up, as in the README's side-by-side run.
readonly TIMING=(-w 5 -n 20)
# Measured runs log nothing (the *_debug steps set their own).
unset NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_DEBUG_FILE

NT_BIN=${NCCL_TESTS_BIN:-}
# 170 s keeps the commsweep-only probe under 3 minutes; nccl-tests' runs (and a build) need more.
if [ -n "$NT_BIN" ] || [ -n "${NCCL_TESTS_SRC:-}" ]; then
  readonly BUDGET_S=${BUDGET_S:-420}
else
  readonly BUDGET_S=${BUDGET_S:-170}
fi
declare -a SUMMARY=()

seconds_left() { echo $((BUDGET_S - SECONDS)); }

# mpirun for NP ranks on this host; an array, not a function, so that env and timeout run it.
MPIRUN=(mpirun --bind-to none -np "$NP")
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
readonly MPIRUN

# step NAME LIMIT_S [VAR=value ...] -- COMMAND...: one bounded run, its output in NAME.log.
step() {
  local name=$1 limit=$2
  shift 2
  local vars=()
  while [ "$1" != "--" ]; do
    vars+=("$1")
    shift
  done
  shift
  local left
  left=$(($(seconds_left) - 5))
  if [ "$left" -lt 15 ]; then
    SUMMARY+=("$name skipped: the ${BUDGET_S}s budget is spent")
    return 0
  fi
  if [ "$left" -lt "$limit" ]; then limit=$left; fi
  local rc=0
  echo "== $name (limit ${limit}s): ${vars[*]} $*" >"$LOGDIR/$name.log"
  timeout --kill-after=10 "$limit" env "${vars[@]}" "$@" >>"$LOGDIR/$name.log" 2>&1 || rc=$?
  SUMMARY+=("$name rc=$rc")
}

machine_facts() {
  {
    nvidia-smi -L || true
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true
    env | grep -E '^(NCCL|CUDA|LD_LIBRARY)_' | sort || true
    "$BIN" --version || true
  } >"$LOGDIR/machine.log" 2>&1
}

# A folder that looks like an NCCL install to nccl-tests' Makefile (the pip wheel has no
# unversioned libnccl.so to link against).
nccl_home_shim() {
  local shim=$1 dir
  local -a dirs
  if [ -n "${NCCL_HOME:-}" ]; then
    echo "$NCCL_HOME"
    return 0
  fi
  IFS=: read -r -a dirs <<<"${LD_LIBRARY_PATH:-}"
  for dir in "${dirs[@]}"; do
    if [ -n "$dir" ] && [ -e "$dir/libnccl.so.2" ] && [ -e "$dir/../include/nccl.h" ]; then
      mkdir -p "$shim/lib"
      ln -sfn "$(cd "$dir/../include" && pwd)" "$shim/include"
      ln -sfn "$dir/libnccl.so.2" "$shim/lib/libnccl.so"
      echo "$shim"
      return 0
    fi
  done
  return 1
}

build_nccl_tests() {
  local src=$1 out home mpi_home
  out=$(mktemp -d)
  if ! home=$(nccl_home_shim "$out/nccl"); then
    SUMMARY+=("nt_build skipped: no libnccl.so.2 with ../include/nccl.h on LD_LIBRARY_PATH; set NCCL_HOME")
    return 0
  fi
  mpi_home=${MPI_HOME:-$(dirname "$(mpicc --showme:libdirs | awk '{print $1}')")}
  step nt_build 170 -- make -C "$src/src" -j"$(nproc)" MPI=1 MPI_HOME="$mpi_home" \
    NCCL_HOME="$home" NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
    BUILDDIR="$out/build" "$out/build/all_reduce_perf"
  if [ -x "$out/build/all_reduce_perf" ]; then NT_BIN=$out/build/all_reduce_perf; fi
}

# Cold and warm buffers, interleaved round by round so that drift (clocks, temperature, a
# neighbour) falls on both alike. Each run: 11 sizes x 3 cycles, about 10-20 s with set-up.
commsweep_runs() {
  local round mode
  for round in $(seq 1 "$ROUNDS"); do
    for mode in cold warm; do
      step "cs_${mode}_r$round" 60 -- "${MPIRUN[@]}" "$BIN" all_reduce -b 1M -e 1G -f 2 -c 1 -N 3 \
        "${TIMING[@]}" --buffers "$mode" --json "$LOGDIR/cs_${mode}_r$round.json"
    done
  done
}

nccl_tests_runs() {
  local nt=("$NT_BIN" -g 1 -f 2 "${TIMING[@]}" -c 1)
  step nt_rotate 60 -- "${MPIRUN[@]}" "${nt[@]}" -b 1M -e 1G -N 3
  local size
  for size in 1M 2M 4M 8M 16M; do
    step "nt_fixed_$size" 30 -- "${MPIRUN[@]}" "${nt[@]}" -b "$size" -e "$size" -N 3
  done
  step nt_span16m 30 -- "${MPIRUN[@]}" "${nt[@]}" -b 1M -e 16M -N 3
  step nt_rotate_nocumem 60 NCCL_CUMEM_ENABLE=0 -- "${MPIRUN[@]}" "${nt[@]}" -b 1M -e 1G -N 3
  step cs_debug 45 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,REG \
    NCCL_DEBUG_FILE="$LOGDIR/nccl-cs.%h.%p.log" -- \
    "${MPIRUN[@]}" "$BIN" all_reduce -b 1M -e 16M -f 2 -w 1 -n 2 -c 0
  step nt_debug 45 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,REG \
    NCCL_DEBUG_FILE="$LOGDIR/nccl-nt.%h.%p.log" -- \
    "${MPIRUN[@]}" "$NT_BIN" -g 1 -b 2M -e 2M -w 1 -n 2 -c 0
}

# Per run label and size: the median out-of-place time and busbw, and the in-place time, over
# every data row of the given logs (both tools print nccl-tests' row layout: size count type
# redop root time algbw busbw #wrong time algbw busbw #wrong), the rows seen and their #wrong.
medians() {
  local label=$1
  shift
  awk -v run="$label" '
    $1 ~ /^[0-9]+$/ && NF >= 13 {
      oop[$1] = oop[$1] " " $6; bus[$1] = bus[$1] " " $8; inp[$1] = inp[$1] " " $10
      rows[$1]++; if ($9 ~ /^[0-9]+$/) wrong[$1] += $9; if ($13 ~ /^[0-9]+$/) wrong[$1] += $13
    }
    function median(list,   v, n, i, j, t) {
      n = split(list, v, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    END {
      for (s = 1048576; s <= 1073741824; s *= 2)
        if (s in oop) printf "%-18s %11d B  oop %9.2f us %7.2f GB/s  ip %9.2f us  rows %2d  #wrong %d\n", run, s, median(oop[s]), median(bus[s]), median(inp[s]), rows[s], wrong[s]
    }' "$@"
}

# cold minus warm per size, from the two modes' median lines: H1's 2-4 us at 1-8 MiB.
cold_minus_warm() {
  awk '$1 == "commsweep_cold" { c[$2] = $5; cb[$2] = $7 } $1 == "commsweep_warm" { w[$2] = $5; wb[$2] = $7 }
    END {
      for (s = 1048576; s <= 1073741824; s *= 2)
        if ((s in c) && (s in w)) printf "cold - warm        %11d B  oop %+9.2f us %+7.2f GB/s (%+.1f%% busbw)\n", s, c[s] - w[s], cb[s] - wb[s], (wb[s] > 0 ? 100 * (cb[s] - wb[s]) / wb[s] : 0)
    }'
}

median_times() {
  local mode log lines=""
  for mode in cold warm; do
    compgen -G "$LOGDIR/cs_${mode}_r*.log" >/dev/null || continue
    lines+=$(medians "commsweep_$mode" "$LOGDIR"/cs_"$mode"_r*.log)$'\n'
  done
  printf '%s' "$lines"
  printf '%s' "$lines" | cold_minus_warm
  for log in "$LOGDIR"/nt_*.log; do
    [ -e "$log" ] || continue
    case $log in *_debug.log | *_build.log) continue ;; esac  # not figures
    medians "$(basename "$log" .log)" "$log"
  done
}

# The kernel choices NCCL logged (one line per distinct choice) and any registration.
nccl_choices() {
  local tag
  for tag in cs nt; do
    compgen -G "$LOGDIR/nccl-$tag.*.log" >/dev/null || continue
    echo "-- $tag: NCCL's choices"
    cat "$LOGDIR"/nccl-"$tag".*.log | grep -E 'Bytes -> ' | sed -E 's/^.*NCCL INFO //' |
      sed -E 's/opCount [0-9a-f]+ //' | sort | uniq -c || true
    echo "-- $tag: lines naming registration or symmetric kernels (none expected; up to 10)"
    cat "$LOGDIR"/nccl-"$tag".*.log | grep -iE 'regist|Symmetric' | sed -E 's/^.*NCCL INFO //' |
      sort -u | head -n 10 || true
  done
}

main() {
  mkdir -p "$LOGDIR"
  if [ ! -x "$BIN" ]; then
    echo "issue2-probe: no commsweep binary at $BIN (give its path as the first argument)" >&2
    exit 2
  fi
  machine_facts
  commsweep_runs
  if [ -z "$NT_BIN" ] && [ -n "${NCCL_TESTS_SRC:-}" ]; then build_nccl_tests "$NCCL_TESTS_SRC"; fi
  if [ -n "$NT_BIN" ] && [ -x "$NT_BIN" ]; then
    nccl_tests_runs
  else
    SUMMARY+=("nccl-tests runs skipped (optional): set NCCL_TESTS_BIN or NCCL_TESTS_SRC to add them")
  fi
  {
    printf '%s\n' "${SUMMARY[@]}"
    echo
    echo "median over ${ROUNDS} rounds x 3 cycles; oop: out-of-place, ip: in-place"
    median_times
    echo
    nccl_choices
    echo "elapsed ${SECONDS}s"
  } | tee "$LOGDIR/summary.txt"
}

main "$@"
