#!/usr/bin/env bash
# Builds commsweep (installing what is missing to build and run it) and runs an all_reduce
# sweep on this machine: one rank per local GPU on the nccl backend, or, with no GPU, one rank
# per core (2 to 4) on the mpi backend over 8 B to 16 MiB unless -e is given. Only the
# commsweep program is built (the tests are scripts/test.sh's), and the CUDA kernels only where
# a GPU is present (COMMSWEEP_CUDA=1 builds them anyway, =0 never). Extra arguments go to
# commsweep, e.g.
#   scripts/run.sh -b 8 -e 8G -f 2
#   scripts/run.sh all -d float,bf16 --json results.json
# Settings (build directory, CUDA architectures, ...): see scripts/common.sh.
set -euo pipefail

readonly COMMSWEEP_SCRIPT=run
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Without a GPU: one rank per core, at least 2 (a collective needs a peer) and at most 4
# (enough for every collective's multi-rank paths); more ranks than cores measure the scheduler.
readonly MIN_CPU_RANKS=2 MAX_CPU_RANKS=4
# Without a GPU and without -e: the largest size. Host memory over shared memory reaches its
# plateau well below it, and the sweep ends in seconds instead of a minute on 2 cores.
readonly CPU_MAX_BYTES=16M

# The tests the arguments name (they lead, as in nccl-tests' order), else commsweep's default.
tests_named() {
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    echo "$1"
  else
    echo "all_reduce"
  fi
}

# has_flag NAMES ARGS...: whether ARGS give one of the flags in NAMES ("--backend" or "-e|--maxbytes").
has_flag() {
  local names=$1 arg name
  shift
  for arg in "$@"; do
    for name in ${names//|/ }; do
      case "$arg" in "$name" | "$name"=*) return 0 ;; esac
    done
  done
  return 1
}

cpu_ranks() {
  local cores
  cores=$(nproc)
  if [ "$cores" -lt "$MIN_CPU_RANKS" ]; then cores=$MIN_CPU_RANKS; fi
  if [ "$cores" -gt "$MAX_CPU_RANKS" ]; then cores=$MAX_CPU_RANKS; fi
  echo "$cores"
}

# Whether to build the CUDA kernels and the nccl backend: asked (COMMSWEEP_CUDA), else where a
# GPU and nvcc are present.
want_cuda() {
  case "${COMMSWEEP_CUDA:-}" in
    1 | ON | on) return 0 ;;
    0 | OFF | off) return 1 ;;
  esac
  [ "$1" -gt 0 ] && [ -n "$(find_nvcc)" ]
}

# Configures a fresh build folder for running only (no tests; CUDA as want_cuda says, for the
# GPUs present; like every script's build, the libraries compiled in batches of files,
# COMMSWEEP_UNITY_BUILD, for a shorter first build: docs/building.md); an existing one keeps its
# settings. Builds the commsweep target alone.
build_for_running() {
  local gpus=$1
  if [ ! -f "$COMMSWEEP_BUILD/CMakeCache.txt" ]; then
    if want_cuda "$gpus"; then
      configure_commsweep ON OFF "${CMAKE_CUDA_ARCHITECTURES:-$(gpu_architectures)}"
    else
      configure_commsweep OFF OFF ""
    fi
  fi
  cmake --build "$COMMSWEEP_BUILD" -j "${COMMSWEEP_JOBS:-$(nproc)}" --target commsweep
}

nccl_built() {
  grep -q "^COMMSWEEP_CUDA:BOOL=ON" "$COMMSWEEP_BUILD/CMakeCache.txt" 2>/dev/null
}

main() {
  install_deps --run
  local gpus ranks what
  local -a backend=() range=()
  gpus=$(gpu_count)
  build_for_running "$gpus"
  what=$(tests_named "$@")
  if [ "$gpus" -gt 0 ] && nccl_built; then
    ranks=$gpus
    has_flag --backend "$@" || backend=(--backend nccl)
    say "$gpus GPU(s) found: running $what on $ranks ranks of the nccl backend, one per GPU"
  else
    ranks=$(cpu_ranks)
    has_flag --backend "$@" || backend=(--backend mpi)
    has_flag "-e|--maxbytes" "$@" || range=(-e "$CPU_MAX_BYTES")
    local why="no GPU found"
    if [ "$gpus" -gt 0 ]; then why="$gpus GPU(s) found but the nccl backend is not built (COMMSWEEP_CUDA=1 builds it)"; fi
    say "$why: running $what on $ranks MPI ranks of the mpi backend ($(nproc) cores here: one rank per core, 2 to 4)," \
        "sizes up to ${range[1]:-the -e given}"
  fi
  local -a launch
  mapfile -t launch < <(mpirun_command "$ranks")
  local -a cmd=("${launch[@]}" "$COMMSWEEP_BUILD/commsweep" "${backend[@]}" "${range[@]}" "$@")
  say "${cmd[*]}"
  "${cmd[@]}"
}

main "$@"
