# shellcheck shell=bash
# What the pod entrypoints (entrypoint-worker.sh, entrypoint-master.sh) and the bare-metal
# launcher (run-baremetal.sh) share: messages, the hostfile parser, the wait for the workers'
# sshd, the mpirun line, the run with SIGTERM forwarded, and the results in results/ layout.
# Sourced, not run. Each function's settings are environment variables documented in the
# --help of the scripts that use them.

LAUNCH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly LAUNCH_REPO

# Exit codes: commsweep's own (docs/failures.md, "Exit codes"; src/core/exit_codes.hpp, which
# tests/docs/check_exit_codes.py checks these against).
readonly EXIT_USAGE=2        # bad input: a hostfile, a setting
readonly EXIT_CALL_FAILED=3  # ssh to a worker failed
readonly EXIT_TIMEOUT=4      # the workers did not come up within the deadline
readonly EXIT_INTERRUPTED=5  # SIGTERM (Kubernetes at activeDeadlineSeconds), or mpirun signalled
readonly EXIT_HEALTH_FAIL=6  # the run's health snapshots found a FAIL (it is still judged)
readonly EXIT_WRONG_DATA=8   # the run found wrong elements (it is still judged)
# Where several happen, the first of these is the exit code (kExitPrecedence).
readonly EXIT_PRECEDENCE="2 3 4 7 8 5 11 6 9 10 12"

# The exit code of two outcomes of one run, as commsweep combines them (combined_exit): the one
# first in EXIT_PRECEDENCE; 0 yields to any other; a code outside the order (mpirun's own 1,
# 205 when it lost a worker's daemon) to any in it.
combined_exit() {
  local a=$1 b=$2 code
  [ "$a" -ne 0 ] || { echo "$b"; return 0; }
  [ "$b" -ne 0 ] || { echo "$a"; return 0; }
  for code in $EXIT_PRECEDENCE; do
    if [ "$a" -eq "$code" ] || [ "$b" -eq "$code" ]; then echo "$code"; return 0; fi
  done
  echo "$a"
}

# 1 MiB: ~40,000 pod FQDNs, far more nodes than one job has.
readonly HOSTFILE_MAX_BYTES=1048576
# How long a launcher waits for the workers' sshd unless COMMSWEEP_WAIT_WORKERS_S says: the one
# default of both launchers (and of the manifests, which do not set it). In a Job it must end
# well inside activeDeadlineSeconds (600 in volcano/base), which also holds the sweep, or
# Kubernetes would end the pod before the launcher names the missing workers; 3 minutes covers a
# worker pulling the image onto a node that has its layers. The wait ends as soon as every
# worker answers, so a healthy start never waits this long.
readonly DEFAULT_WAIT_WORKERS_S=180
# Where the launchers write the workers: Volcano's svc plugin (one pod FQDN a line, no newline
# after the last) and mpi-operator v2 (its ConfigMap <job>-config in the launcher: one
# <pod>.<job>.<namespace>.svc a line with slots=<slotsPerWorker>).
readonly VOLCANO_HOSTFILE=/etc/volcano/mpiworker.host
readonly MPI_OPERATOR_HOSTFILE=/etc/mpi/hostfile

say() { echo "${LAUNCH_NAME:-commsweep}: $*" >&2; }
die() {
  local code=$1
  shift
  echo "${LAUNCH_NAME:-commsweep}: error: $*" >&2
  exit "$code"
}

# A setting that must be a whole number >= min; names the variable when it is not.
require_number() {
  local name=$1 value=$2 min=${3:-0}
  if ! [[ "$value" =~ ^[0-9]+$ ]] || [ "$value" -lt "$min" ]; then
    die "$EXIT_USAGE" "$name=$value: expected a whole number >= $min"
  fi
}

# The commsweep binary: COMMSWEEP_BIN, else commsweep on PATH, else this checkout's build.
find_commsweep() {
  local candidate
  for candidate in "${COMMSWEEP_BIN:-}" "$(command -v commsweep || true)" \
                   "$LAUNCH_REPO/build/commsweep"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  die "$EXIT_USAGE" "commsweep not found: set COMMSWEEP_BIN, put it on PATH or build $LAUNCH_REPO/build"
}

# --- hostfile -------------------------------------------------------------------------------

# The workers' file: COMMSWEEP_HOSTFILE, else the launcher's own that exists (Volcano's, then
# mpi-operator's), else Volcano's (read_hostfile then says that it is missing, naming both).
default_hostfile() {
  if [ -n "${COMMSWEEP_HOSTFILE:-}" ]; then
    echo "$COMMSWEEP_HOSTFILE"
  elif [ ! -e "$VOLCANO_HOSTFILE" ] && [ -e "$MPI_OPERATOR_HOSTFILE" ]; then
    echo "$MPI_OPERATOR_HOSTFILE"
  else
    echo "$VOLCANO_HOSTFILE"
  fi
}

# Prints the hosts of a hostfile, one per line. Accepts Volcano's svc plugin file (one name a
# line, and no newline after the last: `read` alone would drop that host) and Open MPI's
# hostfile syntax (`host slots=N ...`: the words after the name are ignored; comments after #).
# Exits EXIT_USAGE naming the file and line of a bad name or a host listed twice.
read_hostfile() {
  local file=$1
  [ -e "$file" ] || die "$EXIT_USAGE" "hostfile $file does not exist" \
    "(in a Volcano Job the svc plugin writes $VOLCANO_HOSTFILE: is 'svc' in the Job's plugins?" \
    "in an MPIJob mpi-operator writes $MPI_OPERATOR_HOSTFILE into the launcher)"
  if ! [ -f "$file" ] || ! [ -r "$file" ]; then
    die "$EXIT_USAGE" "hostfile $file is not a readable file"
  fi
  # bash drops NUL bytes silently ("node1<NUL>node2" would read as the host node1node2), and a
  # runaway file would keep the loop below busy: a hostfile is short text.
  local bytes
  bytes=$(wc -c <"$file")
  [ "$bytes" -le "$HOSTFILE_MAX_BYTES" ] ||
    die "$EXIT_USAGE" "hostfile $file is $bytes bytes, more than a hostfile ($HOSTFILE_MAX_BYTES)"
  [ "$(tr -d '\000' <"$file" | wc -c)" -eq "$bytes" ] ||
    die "$EXIT_USAGE" "hostfile $file holds NUL bytes: not a text file"
  local line n=0 host
  local -A seen=()
  local -a hosts=()
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    line=${line%$'\r'}
    local -a words=()
    read -r -a words <<<"$line" || true
    [ "${#words[@]}" -gt 0 ] || continue
    host=${words[0]}
    # RFC 1123 host names (pod FQDNs) or IPv4 addresses: no spaces, quotes or shell characters.
    # Checked before the options, so that "node2;touch x" is named as the bad host it is.
    [[ "$host" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$ ]] ||
      die "$EXIT_USAGE" "hostfile $file line $n: '$host' is not a host name"
    local word
    for word in "${words[@]:1}"; do
      [[ "$word" =~ ^[a-z_]+=[0-9]+$ ]] ||
        die "$EXIT_USAGE" "hostfile $file line $n: '$word' after $host is no Open MPI option (slots=N)"
    done
    [ -z "${seen[$host]:-}" ] ||
      die "$EXIT_USAGE" "hostfile $file line $n: $host is listed twice (first on line ${seen[$host]})"
    seen[$host]=$n
    hosts+=("$host")
  done <"$file"
  [ "${#hosts[@]}" -gt 0 ] || die "$EXIT_USAGE" "hostfile $file lists no host"
  printf '%s\n' "${hosts[@]}"
}

# The slots every host of a hostfile has (mpi-operator writes slots=<slotsPerWorker> on each
# line); nothing when no line has slots (Volcano's file). Exits EXIT_USAGE naming the file and
# line when hosts differ, or some have slots and others not: ranks are placed ppr:G:node, the
# same number on every node. Call after read_hostfile (the file is known to be sane).
hostfile_slots() {
  local file=$1 line n=0 slots first="" first_line=0 without=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    [[ "$line" =~ [^[:space:]] ]] || continue
    slots=""
    [[ "$line" =~ [[:space:]]slots=([0-9]+) ]] && slots=${BASH_REMATCH[1]}
    if [ -z "$slots" ]; then
      without=$n
    elif [ -z "$first" ]; then
      first=$slots first_line=$n
    elif [ "$slots" != "$first" ]; then
      die "$EXIT_USAGE" "hostfile $file line $n: slots=$slots, but line $first_line has slots=$first" \
        "(every node runs the same number of ranks)"
    fi
  done <"$file"
  if [ -n "$first" ] && [ "$without" -gt 0 ]; then
    die "$EXIT_USAGE" "hostfile $file line $without has no slots=, line $first_line has slots=$first"
  fi
  if [ -n "$first" ]; then
    [ "$first" -ge 1 ] || die "$EXIT_USAGE" "hostfile $file line $first_line: slots=$first, expected 1 or more"
    echo "$first"
  fi
}

# --- ssh ------------------------------------------------------------------------------------

# ssh options for mpirun's launcher and our own checks. BatchMode: a missing key fails at
# once instead of waiting for a password nobody types; ServerAlive: a worker that vanishes
# ends its ssh session (and so the job) within ~15 s instead of a TCP timeout of minutes.
ssh_options() {
  local -a opts=(-p "${COMMSWEEP_SSH_PORT:-22}" -o BatchMode=yes -o ConnectTimeout=10
                 -o ServerAliveInterval=5 -o ServerAliveCountMax=3
                 # not one "Permanently added ... to the list of known hosts" per worker
                 -o LogLevel=ERROR)
  local dir=${COMMSWEEP_SSH_DIR:-$HOME/.ssh}
  # The ssh plugin's config (StrictHostKeyChecking no: worker host keys are made at start)
  # and key, where the plugin was told to put them elsewhere (its --ssh-key-file-path), or
  # where an MPIJob's sshAuthMountPath put mpi-operator's key.
  if [ "$dir" != "$HOME/.ssh" ]; then
    [ -f "$dir/config" ] && opts+=(-F "$dir/config")
    [ -f "$dir/id_rsa" ] && opts+=(-i "$dir/id_rsa")
  fi
  # mpi-operator's Secret has no config (id_rsa, id_rsa.pub, authorized_keys only): say what
  # Volcano's config says. The workers make their host keys at start, so no known_hosts could
  # hold them; the job's own key pair is what authenticates, in both directions of trust that
  # matter here (only this job's launcher holds the private key the workers accept).
  if [ ! -f "$dir/config" ]; then
    opts+=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null)
  fi
  printf '%s\n' "${opts[@]}"
}

# True when host resolves and something answers on its sshd port with an SSH banner.
sshd_answers() {
  local host=$1 port=${COMMSWEEP_SSH_PORT:-22}
  getent hosts "$host" >/dev/null || return 1
  # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
  timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" && IFS= read -r -t 4 banner <&3 &&
                     [[ "$banner" == SSH-* ]]' _ "$host" "$port" 2>/dev/null
}

# Why a host is not ready, in words.
why_not_ready() {
  if ! getent hosts "$1" >/dev/null; then
    echo "$1 (does not resolve: pod not running yet?)"
  else
    echo "$1 (no sshd answers on port ${COMMSWEEP_SSH_PORT:-22})"
  fi
}

# The workers' deadline in seconds: COMMSWEEP_WAIT_WORKERS_S, else DEFAULT_WAIT_WORKERS_S.
wait_deadline() {
  local deadline=${COMMSWEEP_WAIT_WORKERS_S:-$DEFAULT_WAIT_WORKERS_S}
  require_number COMMSWEEP_WAIT_WORKERS_S "$deadline"
  echo "$deadline"
}

# Waits until every host answers; after `deadline` seconds names the missing ones and exits
# EXIT_TIMEOUT. Says who is still missing every REPORT_EVERY_S seconds.
wait_for_sshd() {
  local deadline=$1
  shift
  local -a missing=("$@") still
  local start=$SECONDS last_report=$SECONDS host
  local -r REPORT_EVERY_S=30 POLL_S=1
  say "waiting up to ${deadline} s for sshd on ${#missing[@]} worker(s), port ${COMMSWEEP_SSH_PORT:-22}"
  while true; do
    still=()
    for host in "${missing[@]}"; do
      sshd_answers "$host" || still+=("$host")
    done
    missing=("${still[@]}")
    [ "${#missing[@]}" -gt 0 ] || break
    if [ $((SECONDS - start)) -ge "$deadline" ]; then
      local why=""
      for host in "${missing[@]}"; do why+="${why:+, }$(why_not_ready "$host")"; done
      die "$EXIT_TIMEOUT" "${#missing[@]} worker(s) not ready after ${deadline} s" \
        "(COMMSWEEP_WAIT_WORKERS_S): $why"
    fi
    if [ $((SECONDS - last_report)) -ge "$REPORT_EVERY_S" ]; then
      say "still waiting for: ${missing[*]}"
      last_report=$SECONDS
    fi
    sleep "$POLL_S"
  done
  say "every worker answers after $((SECONDS - start)) s"
}

# Logs in once to every host, so that a key problem is named here, with ssh's words, rather
# than by mpirun's "ORTE was unable to reliably start one or more daemons".
check_ssh_logins() {
  local -a opts
  mapfile -t opts < <(ssh_options)
  local host out
  for host in "$@"; do
    out=$(ssh "${opts[@]}" "$host" true 2>&1 </dev/null) ||
      die "$EXIT_CALL_FAILED" "ssh to $host failed (the ssh plugin's key in ${COMMSWEEP_SSH_DIR:-$HOME/.ssh}?): $out"
  done
}

# A COMMSWEEP_GPUS_PER_NODE that contradicts the hostfile's slots (an MPIJob's slotsPerWorker)
# is a mistake in the job: named before anything waits.
#   check_gpus_setting SLOTS HOSTFILE
check_gpus_setting() {
  local setting=${COMMSWEEP_GPUS_PER_NODE:-auto} slots=$1 hostfile=$2
  [ "$setting" != auto ] || return 0
  require_number COMMSWEEP_GPUS_PER_NODE "$setting" 1
  if [ -n "$slots" ] && [ "$slots" != "$setting" ]; then
    die "$EXIT_USAGE" "COMMSWEEP_GPUS_PER_NODE=$setting, but $hostfile gives each worker" \
      "slots=$slots (an MPIJob's slotsPerWorker, or Open MPI's slots): make them equal"
  fi
}

# GPUs on one node: COMMSWEEP_GPUS_PER_NODE; else the hostfile's slots (an MPIJob's
# slotsPerWorker); else with `auto` what `nvidia-smi -L` lists on the first host (over ssh
# unless it is this one).
#   gpus_per_node HOST [SLOTS]
gpus_per_node() {
  local setting=${COMMSWEEP_GPUS_PER_NODE:-auto} host=$1 slots=${2:-} count
  if [ "$setting" != auto ]; then
    require_number COMMSWEEP_GPUS_PER_NODE "$setting" 1
    echo "$setting"
    return 0
  fi
  if [ -n "$slots" ]; then
    echo "$slots"
    return 0
  fi
  local -a opts
  mapfile -t opts < <(ssh_options)
  count=$(ssh "${opts[@]}" "$host" "nvidia-smi -L 2>/dev/null | grep -c '^GPU '" </dev/null 2>/dev/null || true)
  if ! [[ "$count" =~ ^[0-9]+$ ]] || [ "$count" -eq 0 ]; then
    die "$EXIT_USAGE" "no GPU listed by nvidia-smi -L on $host: set COMMSWEEP_GPUS_PER_NODE" \
      "(ranks per node; e.g. 1 for the mpi backend on CPU nodes)"
  fi
  echo "$count"
}

# --- mpirun ---------------------------------------------------------------------------------

# Open MPI's hostfile for mpirun: every host with `slots=G`, so that ppr:G:node fits without
# --oversubscribe.
write_mpi_hostfile() {
  local out=$1 slots=$2
  shift 2
  local host
  : >"$out"
  for host in "$@"; do echo "$host slots=$slots" >>"$out"; done
}

# Names of the NCCL_* and UCX_* variables set here, and the health snapshots' switches
# (COMMSWEEP_HEALTH=0 turns them off, COMMSWEEP_SYSFS_ROOT moves /sys, COMMSWEEP_HEALTH_THRESHOLDS
# names the rules' limits file): mpirun passes them to every rank (-x).
fabric_variables() {
  compgen -e | grep -E '^(NCCL|UCX)_|^COMMSWEEP_(HEALTH|SYSFS_ROOT|HEALTH_THRESHOLDS)$' || true
}

# The mpirun command, one word a line: ranks = hosts x gpus, ppr:G:node, the ssh options,
# the environment, then commsweep and its arguments.
#   mpirun_line MPI_HOSTFILE NODES GPUS -- COMMSWEEP ARGS...
mpirun_line() {
  local hostfile=$1 nodes=$2 gpus=$3
  shift 4
  local -a cmd=(mpirun)
  # Root in containers and CI; Open MPI refuses root without it.
  [ "$(id -u)" -ne 0 ] || cmd+=(--allow-run-as-root)
  cmd+=(-np "$((nodes * gpus))" --hostfile "$hostfile" --map-by "ppr:$gpus:node")
  # NCCL pins its threads near each GPU itself; Open MPI's default core binding can fail in
  # pods with a CPU limit or cpuset. COMMSWEEP_MPIRUN_ARGS can ask for another binding.
  cmd+=(--bind-to none)
  local -a ssh_opts
  mapfile -t ssh_opts < <(ssh_options)
  cmd+=(--mca plm_rsh_args "${ssh_opts[*]}")
  # When mpirun is signalled (SIGTERM from Kubernetes), Open MPI 4.1's daemons send the ranks
  # SIGCONT, sleep this long, send SIGTERM, sleep this long again, then SIGKILL. commsweep
  # writes its partial JSON on SIGTERM, so it needs one period; 2 x 10 s plus the fetch of
  # the results fits Kubernetes' default terminationGracePeriodSeconds of 30 s.
  cmd+=(--mca odls_base_sigkill_timeout "${COMMSWEEP_SIGKILL_TIMEOUT_S:-10}")
  # The hosts as the hostfile names them, which is what wait_for_sshd found resolving: Open MPI
  # 4.1 would cut a name at its first dot, and <pod> alone resolves only through Volcano's ssh
  # config (its Host aliases), never for mpi-operator's <pod>.<job>.<namespace>.svc (the
  # operator sets OMPI_MCA_orte_keep_fqdn_hostnames for its launcher for the same reason).
  cmd+=(--mca orte_keep_fqdn_hostnames 1)
  local name
  for name in PATH LD_LIBRARY_PATH $(fabric_variables); do
    [ -z "${!name+set}" ] || cmd+=(-x "$name")
  done
  local -a extra=()
  read -r -a extra <<<"${COMMSWEEP_MPIRUN_ARGS:-}" || true
  cmd+=("${extra[@]}" "$@")
  printf '%s\n' "${cmd[@]}"
}

# The commsweep arguments: the script's own arguments (a Volcano Job's `args`), else
# COMMSWEEP_ARGS (split at spaces), else `suite $COMMSWEEP_SUITE` when that is set, else the
# default sweep of every collective (`all`: those `commsweep list` names) from 8 B to
# COMMSWEEP_MAX_BYTES.
commsweep_arguments() {
  local -a args=("$@")
  if [ "${#args[@]}" -eq 0 ] && [ -n "${COMMSWEEP_ARGS:-}" ]; then
    read -r -a args <<<"$COMMSWEEP_ARGS"
  fi
  if [ "${#args[@]}" -eq 0 ] && [ -n "${COMMSWEEP_SUITE:-}" ]; then
    args=(suite "$COMMSWEEP_SUITE")
  fi
  if [ "${#args[@]}" -eq 0 ]; then
    args=(all -b 8 -e "${COMMSWEEP_MAX_BYTES:-8G}")
  fi
  local a
  for a in "${args[@]}"; do
    case "$a" in
      --json | --json=*) die "$EXIT_USAGE" "commsweep arguments: --json is set by the launcher" \
                           "(results go to COMMSWEEP_RESULTS_DIR)" ;;
    esac
  done
  printf '%s\n' "${args[@]}"
}

# Runs a command in the background and forwards SIGTERM and SIGINT to it as SIGTERM (a
# script that is a container's PID 1 gets no default signal handling, and background jobs of
# a non-interactive shell ignore SIGINT). Sets RUN_RC to its exit code and RUN_SIGNALLED=1
# when a signal was forwarded.
RUN_RC=0
RUN_SIGNALLED=0
run_forwarding_signals() {
  local pid
  "$@" &
  pid=$!
  # shellcheck disable=SC2064 # the pid is fixed now
  trap "RUN_SIGNALLED=1; say 'signal received: sending SIGTERM to ${1##*/} (pid $pid)'; kill -TERM $pid 2>/dev/null || true" TERM INT
  RUN_RC=0
  while true; do
    wait "$pid" && RUN_RC=0 || RUN_RC=$?
    # wait returns >128 when a trapped signal interrupted it; the child may still run.
    kill -0 "$pid" 2>/dev/null || break
  done
  trap - TERM INT
}

# A command as one would type it: words with spaces or quotes in single quotes.
quote_words() {
  local w out=""
  for w in "$@"; do
    if [[ "$w" =~ [[:space:]\'\"] ]]; then w="'${w//\'/\'\\\'\'}'"; fi
    out+="${out:+ }$w"
  done
  echo "$out"
}

# --- results --------------------------------------------------------------------------------

# Stores a results file as DIR/<UTC time>-<test id>.json without ever overwriting one: `ln`
# fails when the name exists (also against another writer), then -2, -3, ... are tried.
# Prints the path stored.
store_results() {
  local source=$1 dir=$2 test_id=$3 stamp
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  mkdir -p "$dir" || die "$EXIT_USAGE" "cannot create the results directory $dir (COMMSWEEP_RESULTS_DIR)"
  local tmp="$dir/.incoming-$$.json" target n=1
  cp "$source" "$tmp"
  target="$dir/$stamp-$test_id.json"
  until ln "$tmp" "$target" 2>/dev/null; do
    n=$((n + 1))
    target="$dir/$stamp-$test_id-$n.json"
    [ "$n" -lt 1000 ] || { rm -f "$tmp"; die "$EXIT_USAGE" "cannot store results in $dir"; }
  done
  rm -f "$tmp"
  echo "$target"
}

# The results as JSON lines on stdout, for log collectors: one line per row and one summary
# line (a whole results document can pass the 16 KiB at which container runtimes split lines).
print_json_lines() {
  local file=$1 test_id=$2
  if command -v python3 >/dev/null; then
    python3 "$LAUNCH_REPO/scripts/results-jsonl.py" --test-id "$test_id" "$file"
  else
    say "python3 not found: printing $file as one line"
    tr -d '\n' <"$file"
    echo
  fi
}

# Test ids become file names: letters, digits, dot, dash, underscore.
check_test_id() {
  [[ "$1" =~ ^[A-Za-z0-9._-]{1,100}$ ]] ||
    die "$EXIT_USAGE" "COMMSWEEP_TEST_ID=$1: use letters, digits, '.', '-' and '_' (it names the results file)"
}

# --- the nightly judgement -------------------------------------------------------------------

# Places a copy of src at target, never replacing a file there (ln fails on an existing name).
place_beside() {
  local src=$1 target=$2 tmp="$2.partial-$$"
  cp "$src" "$tmp" || { rm -f "$tmp"; say "warning: cannot write $target"; return 0; }
  ln "$tmp" "$target" 2>/dev/null || say "warning: $target exists: not replaced"
  rm -f "$tmp"
}

# What compare's exit code means (docs/failures.md, "Exit codes").
compare_meaning() {
  case "$1" in
    0) echo "pass" ;; 2) echo "bad input: nothing judged" ;; 8) echo "wrong data" ;;
    9) echo "regression" ;; 11) echo "output not written" ;; *) echo "compare failed" ;;
  esac
}

# With COMMSWEEP_BASELINE set (the nightly): judges the run with `commsweep compare` against
# it and the history, prints the verdict table, records the run in the history folder
# (COMMSWEEP_HISTORY_DIR, else <results dir>/history: <UTC start>-<tests>.json, never
# overwritten), writes the markdown, HTML and Prometheus reports beside it (same name, .md,
# .html, .prom, .verdicts.json; COMMSWEEP_PROMETHEUS_FILE gets a copy of the metrics, for
# node-exporter's textfile collector), prints the run as JSON lines; with COMMSWEEP_FABRIC_MODE
# set, compare checks it against the baseline's mode (--mode). Returns compare's exit
# code. When compare refuses (exit 2: no baseline file yet, a corrupt one), the run is kept as
# without a baseline, in the results folder, and said so.
#   judge_results RESULTS_FILE RESULTS_DIR TEST_ID WORK_DIR
judge_results() {
  local results=$1 results_dir=$2 test_id=$3 work=$4
  local history=${COMMSWEEP_HISTORY_DIR:-$results_dir/history}
  mkdir -p "$history" || die "$EXIT_USAGE" "cannot create the history folder $history (COMMSWEEP_HISTORY_DIR)"
  local -a cmd=("$(find_commsweep)" compare "$results" --baseline "$COMMSWEEP_BASELINE"
                --history "$history" --record --markdown "$work/report.md" --html "$work/report.html"
                --prometheus "$work/report.prom" --json "$work/verdicts.json")
  # The fabric mode the pods were made for: compare refuses a baseline of another (exit 2).
  [ -z "${COMMSWEEP_FABRIC_MODE:-}" ] || cmd+=(--mode "$COMMSWEEP_FABRIC_MODE")
  say "judging: $(quote_words "${cmd[@]}")"
  local out rc=0
  out=$("${cmd[@]}" 2>"$work/compare.err") || rc=$?
  [ -z "$out" ] || printf '%s\n' "$out"
  [ ! -s "$work/compare.err" ] || cat "$work/compare.err" >&2
  local recorded
  recorded=$(sed -n 's/^recorded //p' <<<"$out" | head -n 1)
  if [ -n "$recorded" ] && [ -f "$recorded" ]; then
    local ext stem=${recorded%.json}
    for ext in md html prom; do place_beside "$work/report.$ext" "$stem.$ext"; done
    place_beside "$work/verdicts.json" "$stem.verdicts.json"
    if [ -n "${COMMSWEEP_PROMETHEUS_FILE:-}" ]; then
      # Replaced on purpose: the textfile collector exports the newest night's metrics.
      if ! { cp "$work/report.prom" "$COMMSWEEP_PROMETHEUS_FILE.tmp.$$" &&
             mv -f "$COMMSWEEP_PROMETHEUS_FILE.tmp.$$" "$COMMSWEEP_PROMETHEUS_FILE"; }; then
        say "warning: cannot write COMMSWEEP_PROMETHEUS_FILE=$COMMSWEEP_PROMETHEUS_FILE"
      fi
    fi
    say "results: $recorded (reports beside it: $(basename "$stem").{md,html,prom,verdicts.json})"
    print_json_lines "$recorded" "$test_id"
  else
    local stored
    stored=$(store_results "$results" "$results_dir" "$test_id")
    say "compare recorded nothing: results kept as $stored; a baseline is made from good runs with" \
      "commsweep baseline RUN... -o $(basename "$COMMSWEEP_BASELINE") and read from $COMMSWEEP_BASELINE" \
      "(the nightly Job: the ConfigMap commsweep-baselines, docs/quickstart.md)"
    print_json_lines "$stored" "$test_id"
  fi
  say "compare exited with code $rc ($(compare_meaning "$rc"))"
  return "$rc"
}

# --- the run --------------------------------------------------------------------------------

# Copies rank 0's results file from its host (the first host: ppr maps rank 0 there) and
# removes it there. False when there is none (commsweep writes none after an error).
fetch_results() {
  local host=$1 remote=$2 local_copy=$3
  local -a opts
  mapfile -t opts < <(ssh_options)
  # shellcheck disable=SC2029 # the path is made here on purpose (no quotes or spaces in it)
  ssh "${opts[@]}" "$host" "cat '$remote' && rm -f '$remote'" >"$local_copy" </dev/null 2>/dev/null &&
    [ -s "$local_copy" ]
}

# Runs commsweep on every host under mpirun, stores its results, prints them as JSON lines.
#   launch_sweep GPUS_PER_NODE HOSTS... -- COMMSWEEP ARGS...
# Returns commsweep's exit code through mpirun (EXIT_INTERRUPTED when a SIGTERM was
# forwarded and mpirun exited with its own code: a signalled mpirun exits 1, never commsweep's);
# with COMMSWEEP_BASELINE, that code combined with compare's.
launch_sweep() {
  local gpus=$1
  shift
  local -a hosts=()
  while [ "$1" != "--" ]; do hosts+=("$1"); shift; done
  shift
  local test_id=${COMMSWEEP_TEST_ID:-commsweep}
  local results_dir=${COMMSWEEP_RESULTS_DIR:-/results}
  check_test_id "$test_id"
  local work
  work=$(mktemp -d -t commsweep-launch.XXXXXX)
  # shellcheck disable=SC2064 # the directory is fixed now
  trap "rm -rf '$work'" EXIT
  write_mpi_hostfile "$work/hostfile" "$gpus" "${hosts[@]}"
  # Rank 0 writes on its own host; the name is unique to this run.
  local remote_json
  remote_json="${COMMSWEEP_REMOTE_TMP:-/tmp}/commsweep-$test_id-$(date -u +%s)-$$.json"
  local -a cmd
  mapfile -t cmd < <(mpirun_line "$work/hostfile" "${#hosts[@]}" "$gpus" -- \
                       "$(find_commsweep)" "$@" --json "$remote_json")
  say "${#hosts[@]} node(s) x $gpus rank(s): ${hosts[*]}"
  say "running: $(quote_words "${cmd[@]}")"
  run_forwarding_signals "${cmd[@]}"
  local rc=$RUN_RC
  say "mpirun exited with code $rc"
  if [ "$RUN_SIGNALLED" = 1 ] && [ "$rc" -ne 0 ]; then
    # Kubernetes' SIGTERM: mpirun forwarded it and exited 1 (or lost a rank: its own code);
    # a code of commsweep's that comes first (wrong data, say) is kept.
    rc=$(combined_exit "$rc" "$EXIT_INTERRUPTED")
  fi
  if ! fetch_results "${hosts[0]}" "$remote_json" "$work/results.json"; then
    say "no results file from rank 0 on ${hosts[0]} ($remote_json): commsweep wrote none"
  elif [ -n "${COMMSWEEP_BASELINE:-}" ] &&
       { [ "$rc" -eq 0 ] || [ "$rc" -eq "$EXIT_HEALTH_FAIL" ] || [ "$rc" -eq "$EXIT_WRONG_DATA" ]; }; then
    # A run that measured to its end is judged: one that passed, found a health FAIL (6) or
    # wrong elements (8, which compare reports too); the exit code is the run's and compare's
    # combined (a regression, 9, comes after both).
    local judged=0
    judge_results "$work/results.json" "$results_dir" "$test_id" "$work" || judged=$?
    rc=$(combined_exit "$rc" "$judged")
  else
    # An interrupted run's partial results are kept, but neither judged nor put in the history
    # (its missing sizes are no regression; its own exit code says what happened).
    [ -z "${COMMSWEEP_BASELINE:-}" ] || say "the run did not end (exit $rc): not judged against the baseline"
    local stored
    stored=$(store_results "$work/results.json" "$results_dir" "$test_id")
    say "results: $stored"
    print_json_lines "$stored" "$test_id"
  fi
  return "$rc"
}
