#!/usr/bin/env python3
"""The setpriv(1) arguments that give a process what a task's container gets from the
container runtime under volcano/base/job.yaml's securityContext: the capability bounding set
(drop, then add, from the runtime's default set) and no_new_privs where
allowPrivilegeEscalation is false. A root process exec'd under a bounding set gets just those
capabilities, as in the container.

Usage: pod_security.py JOB_YAML TASK               prints the arguments, one a line
       pod_security.py JOB_YAML TASK --check PID...  exit 1 unless each live PID has exactly
                                                     the task's capabilities (and no_new_privs)
"""
import sys

import yaml

# containerd's and Docker's default capabilities for a container.
RUNTIME_DEFAULT = ["CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID",
                   "SETUID", "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL",
                   "AUDIT_WRITE"]


def task_privileges(job, task_name):
    """(capabilities, no_new_privs) of the task's container; capabilities None when it is
    privileged (everything)."""
    task = next(t for t in job["spec"]["tasks"] if t["name"] == task_name)
    sc = task["template"]["spec"]["containers"][0].get("securityContext") or {}
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


def check_pids(want, no_new_privs, pids):
    """Each PID's bounding set (what any of its children can ever have) and no_new_privs."""
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
    if checked == 0:
        problems.append("none of the processes %s could be read" % pids)
    for p in problems:
        print("pod_security: " + p, file=sys.stderr)
    return 1 if problems else 0


def main():
    if len(sys.argv) < 3 or (len(sys.argv) > 3 and sys.argv[3] != "--check"):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        job = yaml.safe_load(f)
    caps, no_new_privs = task_privileges(job, sys.argv[2])
    if len(sys.argv) > 3:
        sys.exit(check_pids(caps, no_new_privs, sys.argv[4:]))
    print("\n".join(setpriv_args(caps, no_new_privs)))


if __name__ == "__main__":
    main()
