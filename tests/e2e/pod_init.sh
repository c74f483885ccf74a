#!/usr/bin/env bash
# Runs inside a pod's fresh mount and UTS namespaces (see pods.sh): sets up what the
# container would see, then execs the pod's command.
#   pod_init.sh POD_DIR POD_NAME COMMAND...
# POD_DIR holds hosts (its /etc/hosts), ssh/ (the ssh plugin's Secret, or mpi-operator's),
# volcano/ (the svc plugin's ConfigMap) or mpi/ (an MPIJob launcher's /etc/mpi), setpriv (the
# container's capabilities and no_new_privs as setpriv arguments, one a line: pod_security.py)
# and seccomp (the seccomp-runtime-default command line
# that puts the container's RuntimeDefault filter on the pod's command, one word a line).
set -euo pipefail

dir=$1
pod=$2
shift 2

hostname "$pod"
# Copy-on-write layers over the host's /etc and /root, kept in memory: the pod writes its
# own host keys and files, the host's stay as they are.
layers="$dir/layers"
mkdir -p "$layers"
mount -t tmpfs pod-layers "$layers"
for top in etc root; do
  mkdir -p "$layers/$top-upper" "$layers/$top-work"
  mount -t overlay "pod-$top" \
    -o "lowerdir=/$top,upperdir=$layers/$top-upper,workdir=$layers/$top-work" "/$top"
done
# A container image built with openssh-server but without host keys.
rm -f /etc/ssh/ssh_host_*
cp "$dir/hosts" /etc/hosts
# No cluster DNS: names not in /etc/hosts fail at once (nothing answers on 127.0.0.1:53).
: >/etc/resolv.conf
echo "$pod" >/etc/hostname
# The plugins' volumes, read-only as Kubernetes mounts them.
mount_read_only() {
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mount -o remount,bind,ro "$2"
}
[ ! -d "$dir/volcano" ] || mount_read_only "$dir/volcano" /etc/volcano
# An MPIJob's launcher: mpi-operator's ConfigMap <job>-config (the hostfile).
[ ! -d "$dir/mpi" ] || mount_read_only "$dir/mpi" /etc/mpi
# POD_SSH_DIR: where the ssh plugin mounts its Secret (its --ssh-key-file-path).
if [ -d "$dir/ssh" ]; then
  ssh_dir=${POD_SSH_DIR:-/root/.ssh}
  rm -rf "$ssh_dir"
  mount_read_only "$dir/ssh" "$ssh_dir"
fi
mount -t tmpfs pod-run /run
# The pod's own /tmp, unless this checkout lives there (the binary must stay visible).
case "$(cd "$(dirname "$0")" && pwd -P)/ $dir/ ${COMMSWEEP_BIN:-}" in
  */tmp/*) ;;
  *) mount -t tmpfs pod-tmp /tmp ;;
esac
# The container's privileges (volcano/base/job.yaml's securityContext): the pod's processes
# keep only the capabilities the manifest gives, as under the container runtime.
# Then the runtime's default seccomp filter for those capabilities, on the pod's command and
# everything it starts (sshd's sessions, orted, the ranks), as the runtime puts it on a container.
seccomp=()
[ ! -f "$dir/seccomp" ] || mapfile -t seccomp <"$dir/seccomp"
if [ -f "$dir/setpriv" ]; then
  mapfile -t privileges <"$dir/setpriv"
  exec setpriv "${privileges[@]}" "${seccomp[@]}" "$@"
fi
exec "${seccomp[@]}" "$@"
