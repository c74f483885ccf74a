#!/usr/bin/env bash
# The mpiworker pod's entrypoint: sshd in the foreground, so that mpirun on the master can
# start the ranks here. See --help.
set -euo pipefail

readonly LAUNCH_NAME=commsweep-worker
# shellcheck source=scripts/launch-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-common.sh"

usage() {
  cat <<EOF
Usage: entrypoint-worker.sh [--help]

The entrypoint of a commsweep Volcano Job's mpiworker pods, of an MPIJob's worker pods
(mpi-operator v2), and of any node that mpirun reaches over ssh. In order:
  1. creates the sshd host keys (ed25519, ecdsa) that are missing in COMMSWEEP_SSHD_KEY_DIR
     (a container image should not carry them: every pod would share them);
  2. checks the job's ssh files (Volcano's ssh plugin: id_rsa, id_rsa.pub, authorized_keys,
     config from the Job's <job>-ssh Secret; mpi-operator: id_rsa, id_rsa.pub, authorized_keys
     from the MPIJob's <job>-ssh Secret at its sshAuthMountPath), mounted at COMMSWEEP_SSH_DIR,
     and points sshd at authorized_keys;
  3. raises the locked-memory limit to unlimited (RDMA registers GPU and host buffers), or says
     which limit stays when the container may not (give it the IPC_LOCK capability);
  4. applies \`commsweep env\` (the SR-IOV / RDMA autodetect: NCCL_IB_HCA, ...) when this build
     has that command: the variables go to every ssh session, hence to the ranks;
  5. runs sshd in the foreground (exec: it is the container's main process), key logins only.

Settings (environment):
  COMMSWEEP_SSH_PORT       sshd port (default 22, what the ssh plugin's config implies)
  COMMSWEEP_SSH_DIR        the ssh plugin's files (default \$HOME/.ssh: the plugin's default
                           /root/.ssh for root; set it with the plugin's --ssh-key-file-path,
                           or to the MPIJob's sshAuthMountPath)
  COMMSWEEP_SSHD_KEY_DIR   host keys, created where missing (default /etc/ssh)
  COMMSWEEP_APPLY_ENV      1 (default): apply \`commsweep env\`; 0: do not
  COMMSWEEP_BIN            the commsweep binary (default: on PATH, else <repo>/build/commsweep)
  COMMSWEEP_SSHD_ARGS      more sshd arguments, split at spaces (e.g. "-o LogLevel=DEBUG")

The ranks inherit this script's PATH, LD_LIBRARY_PATH and COMMSWEEP_NODE_NAME (through sshd's SetEnv): an ssh
session would otherwise start with sshd's default PATH and lose the image's.
EOF
}

# No RSA host key: making one takes seconds on a busy node, and every OpenSSH client since
# 6.5 (2014) takes ed25519.
readonly HOST_KEY_TYPES=(ed25519 ecdsa)

ensure_host_keys() {
  local dir=$1 type key
  mkdir -p "$dir"
  for type in "${HOST_KEY_TYPES[@]}"; do
    key="$dir/ssh_host_${type}_key"
    if [ ! -f "$key" ]; then
      ssh-keygen -q -t "$type" -N '' -C "$(hostname)" -f "$key" ||
        die "$EXIT_CALL_FAILED" "ssh-keygen could not create $key"
      say "created host key $key"
    fi
  done
}

# The ssh plugin mounts its Secret with mode 0600; sshd (StrictModes) refuses an
# authorized_keys that others can write, and ssh refuses a private key others can read.
check_ssh_plugin_files() {
  local dir=$1 f
  if [ ! -f "$dir/authorized_keys" ]; then
    say "warning: no $dir/authorized_keys: mpirun on the master will not be able to log in" \
        "(is 'ssh' in the Volcano Job's plugins, or COMMSWEEP_SSH_DIR the MPIJob's sshAuthMountPath?)"
    return 0
  fi
  for f in authorized_keys id_rsa; do
    [ -f "$dir/$f" ] || continue
    if [ -n "$(find "$dir/$f" -perm /022)" ]; then
      say "warning: $dir/$f is writable by group or others: sshd (StrictModes) will refuse it"
    fi
  done
  say "ssh files in $dir: $(find "$dir" -maxdepth 1 -type f -printf '%f\n' | sort | tr '\n' ' ')"
}

# True when this process holds CAP_IPC_LOCK (bit 14 of CapEff), which ignores RLIMIT_MEMLOCK.
has_ipc_lock() {
  local eff
  eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status 2>/dev/null) || return 1
  [ -n "$eff" ] && (( (16#$eff >> 14) & 1 ))
}

raise_memlock() {
  if ulimit -l unlimited 2>/dev/null; then
    say "locked-memory limit: unlimited"
    return 0
  fi
  # Not allowed: take the hard limit at least.
  ulimit -S -l "$(ulimit -H -l)" 2>/dev/null || true
  if has_ipc_lock; then
    say "locked-memory limit stays $(ulimit -l) KiB; CAP_IPC_LOCK lets RDMA register memory beyond it"
    return 0
  fi
  say "warning: cannot raise the locked-memory limit to unlimited; it stays $(ulimit -l) KiB" \
      "(RDMA memory registration may fail: give the container the IPC_LOCK capability, which" \
      "ignores the limit, or raise the node's limit)"
}

# Exports here what `commsweep env` exports; their names go to APPLIED_ENV.
APPLIED_ENV=()
apply_commsweep_env() {
  if [ "${COMMSWEEP_APPLY_ENV:-1}" != 1 ]; then
    say "COMMSWEEP_APPLY_ENV=${COMMSWEEP_APPLY_ENV}: not applying commsweep env"
    return 0
  fi
  local bin out line
  bin=$(COMMSWEEP_BIN=${COMMSWEEP_BIN:-} find_commsweep 2>/dev/null) || {
    say "commsweep not found: skipping the fabric autodetect (commsweep env)"
    return 0
  }
  # A command is there when `commsweep --help` lists it ("  env   summary").
  local help
  help=$(timeout 10 "$bin" --help 2>/dev/null || true)
  if ! grep -qE '^  env +' <<<"$help"; then
    say "this commsweep has no 'env' command: skipping the fabric autodetect"
    return 0
  fi
  if ! out=$(timeout 60 "$bin" env 2>&1); then
    say "warning: commsweep env failed, its settings are not applied: $out"
    return 0
  fi
  # Only `export NAME=value` lines are taken (value shell-quoted by commsweep env).
  while IFS= read -r line; do
    if [[ "$line" =~ ^export\ ([A-Z_][A-Z0-9_]*)=(.*)$ ]]; then
      eval "$line"
      say "commsweep env: ${BASH_REMATCH[1]}=${!BASH_REMATCH[1]}"
      APPLIED_ENV+=("${BASH_REMATCH[1]}")
    fi
  done <<<"$out"
}

# sshd's SetEnv for the given variables, so that orted and the ranks get them.
setenv_option() {
  local name value words=()
  for name in "$@"; do
    [ -n "${!name+set}" ] || continue
    value=${!name}
    if [[ "$value" == *'"'* ]]; then
      say "warning: $name holds a double quote: not passed to ssh sessions"
      continue
    fi
    words+=("\"$name=$value\"")
  done
  [ "${#words[@]}" -eq 0 ] || echo "SetEnv=${words[*]}"
}

main() {
  case "${1:-}" in
    -h | --help) usage; return 0 ;;
    "") ;;
    *) usage >&2; die "$EXIT_USAGE" "unexpected argument '$1'" ;;
  esac
  local port=${COMMSWEEP_SSH_PORT:-22}
  require_number COMMSWEEP_SSH_PORT "$port" 1
  local key_dir=${COMMSWEEP_SSHD_KEY_DIR:-/etc/ssh}
  local ssh_dir=${COMMSWEEP_SSH_DIR:-$HOME/.ssh}
  local sshd
  sshd=$(command -v sshd || echo /usr/sbin/sshd)
  [ -x "$sshd" ] || die "$EXIT_USAGE" "sshd not found: install openssh-server (scripts/install-deps.sh --pod)"

  ensure_host_keys "$key_dir"
  check_ssh_plugin_files "$ssh_dir"
  raise_memlock
  apply_commsweep_env
  # sshd's privilege separation directory; images often lack it (it lives in /run).
  mkdir -p /run/sshd
  chmod 0755 /run/sshd

  # Keys only (the ssh plugin's), whatever the image's sshd_config says: options given here
  # come first, and sshd takes the first value it reads. No forwarding: mpirun needs none.
  local -a args=(-p "$port"
    -o AuthenticationMethods=publickey -o PasswordAuthentication=no
    -o KbdInteractiveAuthentication=no -o PermitEmptyPasswords=no -o HostbasedAuthentication=no
    -o PermitRootLogin=prohibit-password -o DisableForwarding=yes
    # PAM in containers fails on pam_loginuid and adds nothing to key logins.
    -o UsePAM=no
    -o "AuthorizedKeysFile=.ssh/authorized_keys $ssh_dir/authorized_keys"
    # A master that vanished: its sessions (orted) end within ~30 s.
    -o ClientAliveInterval=10 -o ClientAliveCountMax=3)
  local type
  for type in "${HOST_KEY_TYPES[@]}"; do args+=(-h "$key_dir/ssh_host_${type}_key"); done
  local setenv
  setenv=$(setenv_option PATH LD_LIBRARY_PATH COMMSWEEP_NODE_NAME "${APPLIED_ENV[@]}")
  [ -z "$setenv" ] || args+=(-o "$setenv")
  local -a extra=()
  read -r -a extra <<<"${COMMSWEEP_SSHD_ARGS:-}" || true
  args+=("${extra[@]}")
  # sshd checks its configuration before it serves: a bad option is named now, not at login.
  "$sshd" -t "${args[@]}" || die "$EXIT_USAGE" "sshd refuses its configuration (above)"
  say "sshd listening on port $port (keys only) on $(hostname)"
  exec "$sshd" -D -e "${args[@]}"
}

main "$@"
