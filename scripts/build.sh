#!/usr/bin/env bash
# Installs what is missing and builds commsweep into build/, without running the tests: the
# first half of scripts/test.sh (the same functions from scripts/common.sh), for the container
# image (volcano/Dockerfile) and for anyone who only wants the binary. Settings: scripts/common.sh.
set -euo pipefail

readonly COMMSWEEP_SCRIPT=build
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

main() {
  install_deps --pod
  build_commsweep all
  say "built $COMMSWEEP_BUILD/commsweep"
}

main "$@"
