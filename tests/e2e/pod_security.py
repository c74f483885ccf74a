#!/usr/bin/env python3
"""The setpriv(1) arguments that give a process what a task's container gets from the
container runtime under volcano/base/job.yaml's securityContext (or an MPIJob's: volcano/kueue/
mpijob.yaml, where task mpimaster is the Launcher and mpiworker the Worker): the capability bounding set
(drop, then add, from the runtime's default set) and no_new_privs where
allowPrivilegeEscalation is false. A root process exec'd under a bounding set gets just those
capabilities, as in the container.

The container's seccomp profile is emulated with tests/security/seccomp-runtime-default
(RuntimeDefault's filter for the container's capabilities); Unconfined needs nothing, Localhost
(a node's file) cannot be emulated.

Usage: pod_security.py JOB_YAML TASK               prints the arguments, one a line
       pod_security.py JOB_YAML TASK --seccomp LAUNCHER
                                  prints the launcher's command line for the task's container,
                                  one word a line (nothing when it runs Unconfined)
       pod_security.py JOB_YAML TASK --check [--without-seccomp] PID...
                                  exit 1 unless each live PID has exactly the task's
                                  capabilities (and no_new_privs), and runs in seccomp filter
                                  mode (Seccomp: 2) where the task's profile is RuntimeDefault
                                  (unless --without-seccomp: no launcher was built)
"""
import sys

import yaml

# containerd's and Docker's default capabilities for a container.
RUNTIME_DEFAULT = ["CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID",
                   "SETUID", "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL",
                   "AUDIT_WRITE"]


# An MPIJob's replica types by the Volcano task they stand for (volcano/kueue: the same pods).
MPIJOB_REPLICAS = {"mpimaster": "Launcher", "mpiworker": "Worker"}


def task_pod(job, task_name):
    if job["kind"] == "MPIJob":
        return job["spec"]["mpiReplicaSpecs"][MPIJOB_REPLICAS[task_name]]["template"]["spec"]
    return next(t for t in job["spec"]["tasks"] if t["name"] == task_name)["template"]["spec"]


def load_job(path):
    """The Volcano Job or MPIJob of a manifest file (a rendering holds its ConfigMaps too)."""
    with open(path) as f:
        return next(d for d in yaml.safe_load_all(f) if d and d.get("kind") in ("Job", "MPIJob"))


def task_seccomp(job, task_name):
    """The seccomp profile type of the task's container: its own, else the pod's (Kubernetes'
    rule); unset means the kubelet's default, Unconfined."""
    pod = task_pod(job, task_name)
    own = (pod["containers"][0].get("securityContext") or {}).get("seccompProfile")
    profile = own if own is not None else (pod.get("securityContext") or {}).get("seccompProfile")
    return (profile or {}).get("type", "Unconfined")


def seccomp_args(job, task_name, launcher):
    kind = task_seccomp(job, task_name)
    if kind == "Unconfined":
        return []
    if kind != "RuntimeDefault":
        sys.exit("pod_security: %s's seccompProfile %s cannot be emulated here" % (task_name, kind))
    caps, _ = task_privileges(job, task_name)
    if caps is None:
        return []  # privileged containers run Unconfined whatever the profile says
    return [launcher, "--caps", ",".join(sorted(caps)), "--"]


def task_privileges(job, task_name):
    """(capabilities, no_new_privs) of the task's container; capabilities None when it is
    privileged (everything)."""
    sc = task_pod(job, task_name)["containers"][0].get("securityContext") or {}
    if sc.get("privileged"):
        return None, False
    caps = sc.get("capabilities") or {}
    drop = set(caps.get("drop") or [])
    have = set() if "ALL" in drop else set(RUNTIME_DEFAULT) - drop
    have |= set(caps.get("add") or [])
    return have, sc.get("allowPrivilegeEscalation") is False


def setpriv_args(caps, no_new_privs):
    if caps is None:
        return []
    args = ["--bounding-set=" + ",".join(["-all"] + ["+" + c.lower() for c in sorted(caps)]),
            "--inh-caps=-all"]
    if no_new_privs:
        args.append("--no-new-privs")
    return args


# Linux capability numbers (linux/capability.h), for reading /proc/PID/status.
CAP_NUMBERS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID",
               "SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST",
               "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO",
               "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
               "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE",
               "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM",
               "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE"]


def capability_names(mask):
    return {name for i, name in enumerate(CAP_NUMBERS) if mask >> i & 1}


def check_pids(want, no_new_privs, seccomp, pids):
    """Each PID's bounding set (what any of its children can ever have), no_new_privs and,
    when `seccomp`, the filter mode (2) seccomp-runtime-default put it in."""
    if want is None:
        want = set(CAP_NUMBERS)  # privileged: every capability
    problems, checked = [], 0
    for pid in pids:
        try:
            with open("/proc/%s/status" % pid) as f:
                status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
        except OSError:
            continue  # ended meanwhile
        checked += 1
        have = capability_names(int(status["CapBnd"], 16))
        if have != want:
            problems.append("pid %s (%s): capabilities %s, expected %s" % (pid, comm, sorted(have), sorted(want)))
        if no_new_privs and status.get("NoNewPrivs", "0").strip() != "1":
            problems.append("pid %s (%s): no_new_privs is not set" % (pid, comm))
        if seccomp and status.get("Seccomp", "0").strip() != "2":
            problems.append("pid %s (%s): Seccomp is %s, expected 2 (the RuntimeDefault filter)"
                            % (pid, comm, status.get("Seccomp", "absent").strip()))
    if checked == 0:
        problems.append("none of the processes %s could be read" % pids)
    for p in problems:
        print("pod_security: " + p, file=sys.stderr)
    return 1 if problems else 0


def main():
    args = sys.argv[1:]
    if len(args) < 2 or (len(args) > 2 and args[2] not in ("--check", "--seccomp")) or \
            (len(args) > 2 and args[2] == "--seccomp" and len(args) != 4):
        sys.exit(__doc__)
    job = load_job(args[0])
    caps, no_new_privs = task_privileges(job, args[1])
    if len(args) > 2 and args[2] == "--seccomp":
        print("\n".join(seccomp_args(job, args[1], args[3])))
    elif len(args) > 2:
        pids = args[3:]
        without = bool(pids) and pids[0] == "--without-seccomp"
        seccomp = not without and task_seccomp(job, args[1]) == "RuntimeDefault" and caps is not None
        sys.exit(check_pids(caps, no_new_privs, seccomp, pids[1:] if without else pids))
    else:
        print("\n".join(setpriv_args(caps, no_new_privs)))


if __name__ == "__main__":
    main()
