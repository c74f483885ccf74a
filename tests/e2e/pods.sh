# shellcheck shell=bash
# A Volcano Job emulated on one machine: one network namespace per pod on a bridge (in a
# "switch" namespace of its own, so the host's network is not touched), 198.18.0.0/15
# addresses (RFC 2544 benchmark range), and per pod a mount and UTS namespace: its own
# hostname (the pod name), /etc and /root as copy-on-write layers over the host's (so /etc/hosts,
# /etc/ssh host keys, /etc/volcano and /root/.ssh are the pod's), its own /run and /tmp.
# What the Volcano plugins put in a pod is made here as they make it:
#   ssh plugin: a 2048-bit RSA key, id_rsa (PKCS#1 PEM), id_rsa.pub, authorized_keys (the
#     same public key), config (StrictHostKeyChecking no, UserKnownHostsFile /dev/null, a
#     Host/HostName pair per pod), mounted read-only at /root/.ssh with mode 0600;
#   svc plugin: /etc/volcano/<task>.host (one FQDN a line, no newline after the last) and
#     VC_<TASK>_HOSTS / VC_<TASK>_NUM; cluster DNS for <pod>.<job> as /etc/hosts lines.
# An MPIJob (mpi-operator v2, E2E_WRAPPER=mpijob) is emulated as mpi-operator makes it:
#   its Secret <job>-ssh: an ECDSA P-521 key in PEM as id_rsa, id_rsa.pub, authorized_keys (the
#     same public key), no config, mounted read-only at sshAuthMountPath (/root/.ssh);
#   its ConfigMap <job>-config in the launcher at /etc/mpi: hostfile, one
#     <pod>.<job>.<namespace>.svc slots=<slotsPerWorker> a line; no /etc/volcano, no VC_* env;
#   pods <job>-launcher-<suffix> (a batch Job's pod) and <job>-worker-<i>, with a headless
#   Service <job> (the DNS names above).
# Its pods get addresses and namespace names of their own (198.18.17.0/24, csmpi<pid>...), so
# that both wrappers' cases can run at once.
# Sourced by e2e_case.sh. Uses E2E_WORK (a directory), E2E_WRAPPER (volcano or mpijob) and
# E2E_PREFIX (namespace names: E2E_PREFIX_BASE<pid>); sets for it POD_PID (start_pod), POD_RC
# and POD_ELAPSED (wait_pod) and the names below.
# shellcheck disable=SC2034 # the variables are the sourcing script's

readonly E2E_JOB=commsweep-e2e
if [ "${E2E_WRAPPER:-volcano}" = mpijob ]; then
  readonly E2E_SUBNET=198.18.17
  # mpi-operator's headless Service and namespace: the hostfile's names are FQDNs.
  readonly E2E_DOMAIN=$E2E_JOB.default.svc
  # The launcher is a batch Job's pod: <job>-launcher-<5 random characters>.
  readonly E2E_MASTER_POD=$E2E_JOB-launcher-e2e17
  readonly E2E_WORKER_INFIX=-worker-
else
  readonly E2E_SUBNET=198.18.0
  readonly E2E_DOMAIN=$E2E_JOB
  readonly E2E_MASTER_POD=$E2E_JOB-mpimaster-0
  readonly E2E_WORKER_INFIX=-mpiworker-
fi
readonly E2E_MASTER_IP=$E2E_SUBNET.10
E2E_POD_INIT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pod_init.sh"
readonly E2E_POD_INIT

log() { echo "e2e: $*"; }

master_pod() { echo "$E2E_MASTER_POD"; }
worker_pod() { echo "$E2E_JOB$E2E_WORKER_INFIX$1"; }
# The name the launcher's file gives a worker (what cluster DNS resolves).
worker_fqdn() { echo "$(worker_pod "$1").$E2E_DOMAIN"; }
worker_ip() { echo "$E2E_SUBNET.$((20 + $1))"; }
pod_ns() { echo "${E2E_PREFIX}$1"; }  # $1: m, w0, w1, ...

# Skips (exit 77) unless this machine can emulate pods.
require_emulation() {
  local why=""
  if [ "$(id -u)" -ne 0 ]; then why="not root (network namespaces and mounts need root)"
  elif ! command -v ip >/dev/null; then why="ip (iproute2) not found"
  elif ! command -v unshare >/dev/null; then why="unshare (util-linux) not found"
  elif ! command -v setpriv >/dev/null; then why="setpriv (util-linux) not found"
  elif ! command -v sshd >/dev/null && [ ! -x /usr/sbin/sshd ]; then
    why="sshd not found (openssh-server; scripts/install-deps.sh --pod installs it)"
  elif ! command -v ssh >/dev/null; then why="ssh not found (openssh-client)"
  elif ! command -v mpirun >/dev/null; then why="mpirun not found"
  elif ! ip netns add "${E2E_PREFIX}probe" 2>/dev/null; then
    why="cannot create a network namespace (ip netns add)"
  elif ! ip netns exec "${E2E_PREFIX}probe" unshare --mount --uts true 2>/dev/null; then
    why="cannot create mount/UTS namespaces (unshare)"
  fi
  ip netns del "${E2E_PREFIX}probe" 2>/dev/null || true
  if [ -n "$why" ]; then
    echo "SKIP: end-to-end Volcano emulation: $why"
    exit 77
  fi
}

# Namespaces left by a run that was killed before its trap ran (ctest's timeout kills hard):
# those whose owner process is gone.
remove_stale_namespaces() {
  local ns pid
  for ns in $(ip netns list | awk '{print $1}' | grep -E "^${E2E_PREFIX_BASE}[0-9]+" || true); do
    pid=${ns#"$E2E_PREFIX_BASE"}
    pid=${pid%%[!0-9]*}
    kill -0 "$pid" 2>/dev/null && continue
    log "removing namespace $ns left by a killed run (pid $pid)"
    kill_namespace_processes "$ns"
    ip netns del "$ns" 2>/dev/null || true
  done
}

kill_namespace_processes() {
  local ns=$1
  local -a pids
  mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null)
  [ "${#pids[@]}" -eq 0 ] || kill -9 "${pids[@]}" 2>/dev/null || true
}

# Every namespace of this run, its processes first (sshd, orted, ranks, entrypoints).
cleanup_job() {
  local ns tries
  for ns in $(ip netns list | awk '{print $1}' | grep "^${E2E_PREFIX}" || true); do
    kill_namespace_processes "$ns"
  done
  for tries in 1 2 3 4 5; do
    local left=""
    for ns in $(ip netns list | awk '{print $1}' | grep "^${E2E_PREFIX}" || true); do
      left+="$(ip netns pids "$ns" 2>/dev/null)"
    done
    [ -z "$left" ] && break
    sleep 0.2
    [ "$tries" -lt 5 ] || log "warning: processes still in the namespaces: $left"
  done
  for ns in $(ip netns list | awk '{print $1}' | grep "^${E2E_PREFIX}" || true); do
    ip netns del "$ns" 2>/dev/null || log "warning: could not delete namespace $ns"
  done
}

# The switch: a bridge in a namespace of its own.
create_switch() {
  local sw
  sw=$(pod_ns sw)
  ip netns add "$sw"
  ip -n "$sw" link add br0 type bridge
  ip -n "$sw" link set br0 up
  ip -n "$sw" link set lo up
}

# A pod's namespace, cabled to the switch: eth0 with the given address.
create_pod_network() {
  local tag=$1 ip=$2 ns sw
  ns=$(pod_ns "$tag")
  sw=$(pod_ns sw)
  ip netns add "$ns"
  ip -n "$sw" link add "p$tag" type veth peer name eth0 netns "$ns"
  ip -n "$sw" link set "p$tag" master br0 up
  ip -n "$ns" addr add "$ip/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
}

# The ssh plugin's Secret (or mpi-operator's), once per job.
make_ssh_secret() {
  local dir=$1 workers=$2 i pod
  mkdir -p "$dir"
  if [ "${E2E_WRAPPER:-volcano}" = mpijob ]; then
    # mpi-operator: ecdsa.GenerateKey(elliptic.P521()), PEM, in a file named id_rsa.
    ssh-keygen -q -t ecdsa -b 521 -m PEM -N '' -C "" -f "$dir/id_rsa"
    cp "$dir/id_rsa.pub" "$dir/authorized_keys"
    chmod 0600 "$dir"/*
    return 0
  fi
  ssh-keygen -q -t rsa -b 2048 -m PEM -N '' -C "" -f "$dir/id_rsa"
  cp "$dir/id_rsa.pub" "$dir/authorized_keys"
  {
    printf 'StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n'
    for pod in "$(master_pod)" $(for ((i = 0; i < workers; i++)); do worker_pod "$i"; done); do
      printf 'Host %s\n  HostName %s.%s\n' "$pod" "$pod" "$E2E_JOB"
    done
  } >"$dir/config"
  chmod 0600 "$dir"/*
}

# The svc plugin's ConfigMap, once per job: mpiworker.host lists `listed` workers. For an
# MPIJob: mpi-operator's <job>-config, whose hostfile lists them with slots=E2E_SLOTS.
make_svc_configmap() {
  local dir=$1 listed=$2 i
  local -a workers=()
  for ((i = 0; i < listed; i++)); do workers+=("$(worker_fqdn "$i")"); done
  mkdir -p "$dir"
  if [ "${E2E_WRAPPER:-volcano}" = mpijob ]; then
    : >"$dir/hostfile"
    for ((i = 0; i < listed; i++)); do
      printf '%s slots=%s\n' "${workers[$i]}" "$E2E_SLOTS" >>"$dir/hostfile"
    done
    return 0
  fi
  printf '%s' "$(master_pod).$E2E_JOB" >"$dir/mpimaster.host"
  printf '%s' "$(IFS=$'\n'; echo "${workers[*]}")" >"$dir/mpiworker.host"
  printf '%s' "$(master_pod).$E2E_JOB" >"$dir/VC_MPIMASTER_HOSTS"
  printf '1' >"$dir/VC_MPIMASTER_NUM"
  printf '%s' "$(IFS=,; echo "${workers[*]}")" >"$dir/VC_MPIWORKER_HOSTS"
  printf '%s' "$listed" >"$dir/VC_MPIWORKER_NUM"
}

# A pod's /etc/hosts: kubelet's lines for itself, then what cluster DNS would answer for the
# running pods of the Job (those in `dns`: "name ip" lines).
make_etc_hosts() {
  local out=$1 pod=$2 ip=$3 dns=$4
  {
    echo "# Kubernetes-managed hosts file."
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
    printf '%s\t%s.%s.default.svc.cluster.local\t%s\n' "$ip" "$pod" "$E2E_JOB" "$pod"
    echo "# the emulation's cluster DNS: the Job's headless service"
    echo "$dns" | awk 'NF == 2 { printf "%s\t%s\n", $2, $1 }'
  } >"$out"
}

# Starts a pod's process: net namespace `tag`, hostname `pod`, the pod's files from `dir`.
# Its output goes to dir/stdout and dir/stderr; its pid to POD_PID (a child of this shell,
# so that wait_pod can take its exit code).
start_pod() {
  local tag=$1 pod=$2 dir=$3
  shift 3
  ip netns exec "$(pod_ns "$tag")" unshare --mount --uts --propagation private -- \
    bash "$E2E_POD_INIT" "$dir" "$pod" "$@" >"$dir/stdout" 2>"$dir/stderr" </dev/null &
  POD_PID=$!
}

# Waits for pid at most `bound` seconds; kills it after. Sets POD_RC and POD_ELAPSED;
# POD_RC=124 when it had to be killed.
wait_pod() {
  local pid=$1 bound=$2 start=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge "$bound" ]; then
      kill -9 "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      POD_RC=124
      POD_ELAPSED=$((SECONDS - start))
      return 0
    fi
    sleep 0.2
  done
  POD_RC=0
  wait "$pid" || POD_RC=$?
  POD_ELAPSED=$((SECONDS - start))
}

# Waits until a pod's file holds a line matching a pattern; false after `bound` seconds.
wait_for_line() {
  local file=$1 pattern=$2 bound=$3 start=$SECONDS
  until grep -qE "$pattern" "$file" 2>/dev/null; do
    [ $((SECONDS - start)) -lt "$bound" ] || return 1
    sleep 0.2
  done
}
