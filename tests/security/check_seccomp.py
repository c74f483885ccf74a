#!/usr/bin/env python3
"""Real syscalls under seccomp-runtime-default (ctest security.seccomp): each denial the
profile makes, each capability that lifts one, the argument rules, what must keep working
(a program, a thread, a fork, an exec, a TCP socket), the filter inherited by grandchildren,
and the launcher's usage errors. Each probe is also run without the launcher first where the
host's answer differs, so that a filter that denied nothing would fail here.

Usage: check_seccomp.py --launcher PATH
       check_seccomp.py --probe NAME      (run under the launcher: prints the call's errno
                                           name, or OK)
Exit: 0 all passed, 1 a check failed (each printed), 77 skipped (not Linux x86_64, not root,
or already under a seccomp filter).
"""
import argparse
import ctypes
import errno
import os
import platform
import subprocess
import sys

SKIP_CODE = 77
TIMEOUT_S = 20  # each command; the whole test has ctest's 60 s

# x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
NR = {"getpid": 39, "clone": 56, "chroot": 161, "mbind": 237, "set_mempolicy": 238,
      "get_mempolicy": 239, "unshare": 272, "keyctl": 250, "io_uring_setup": 425, "clone3": 435,
      "pidfd_getfd": 438, "personality": 135, "socket": 41}
X32_BIT = 0x40000000
CLONE_NEWUTS, CLONE_SIGHAND, SIGCHLD = 0x04000000, 0x00000800, 17
AF_INET, AF_ALG, AF_VSOCK, SOCK_STREAM, SOCK_SEQPACKET = 2, 38, 40, 1, 5
ADDR_NO_RANDOMIZE = 0x0040000

# Each probe makes one call whose answer tells the filter's decision apart from the kernel's:
# arguments the kernel refuses after seccomp (EINVAL, EBADF) or that are harmless when allowed.
PROBES = {
    "mbind": lambda s: s(NR["mbind"], 0, 0, 0, 0, 0, 0),                 # empty range: 0
    "set_mempolicy": lambda s: s(NR["set_mempolicy"], 0, 0, 0),          # MPOL_DEFAULT: 0
    "get_mempolicy": lambda s: s(NR["get_mempolicy"], 0, 0, 0, 0, 0),    # 0
    "pidfd_getfd": lambda s: s(NR["pidfd_getfd"], -1, 0, 0),             # EBADF when allowed
    "chroot": lambda s: s(NR["chroot"], b"/"),                            # 0 as root
    "clone3": lambda s: s(NR["clone3"], 0, 0),                            # EINVAL when allowed
    "unshare": lambda s: s(NR["unshare"], CLONE_NEWUTS),                  # 0 as root
    # CLONE_SIGHAND without CLONE_VM: the kernel refuses it (EINVAL) after seccomp, so no child.
    "clone_newuts": lambda s: s(NR["clone"], CLONE_NEWUTS | CLONE_SIGHAND | SIGCHLD, 0, 0, 0, 0),
    "clone_plain": lambda s: s(NR["clone"], CLONE_SIGHAND | SIGCHLD, 0, 0, 0, 0),
    "keyctl": lambda s: s(NR["keyctl"], 0, 0, 0, 0, 0),                   # KEYCTL_GET_KEYRING_ID
    "io_uring_setup": lambda s: s(NR["io_uring_setup"], 0, 0),           # EINVAL/EFAULT allowed
    "socket_alg": lambda s: s(NR["socket"], AF_ALG, SOCK_SEQPACKET, 0),
    "socket_vsock": lambda s: s(NR["socket"], AF_VSOCK, SOCK_STREAM, 0),
    "socket_inet": lambda s: s(NR["socket"], AF_INET, SOCK_STREAM, 0),
    "personality_query": lambda s: s(NR["personality"], 0xffffffff),
    "personality_norandom": lambda s: s(NR["personality"], ADDR_NO_RANDOMIZE),
    "x32_getpid": lambda s: s(X32_BIT | NR["getpid"]),
}


def probe(name):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    call = lambda nr, *args: libc.syscall(ctypes.c_long(nr), *[
        a if isinstance(a, bytes) else ctypes.c_long(a) for a in args])
    result = PROBES[name](call)
    print("OK" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())))


class Checker:
    def __init__(self, launcher):
        self.launcher = launcher
        self.failures = []

    def run(self, argv, under=True, caps=None):
        pre = [self.launcher] + (["--caps", caps] if caps is not None else []) + ["--"] if under else []
        return subprocess.run(pre + argv, capture_output=True, text=True, timeout=TIMEOUT_S)

    def answer(self, name, under=True, caps=None):
        proc = self.run([sys.executable, os.path.abspath(__file__), "--probe", name], under, caps)
        return proc.stdout.strip() or "exit %d: %s" % (proc.returncode, proc.stderr.strip())

    def expect(self, what, ok, detail):
        print("%s: %s (%s)" % ("ok" if ok else "FAILED", what, detail))
        if not ok:
            self.failures.append(what)

    def probe_is(self, name, want, caps=None):
        got = self.answer(name, caps=caps)
        where = "--caps %s" % caps if caps is not None else "no capabilities"
        self.expect("%s under the filter, %s, answers %s" % (name, where, want), got == want, "got %s" % got)

    def probe_is_not(self, name, unwanted, caps=None, under=True):
        got = self.answer(name, under=under, caps=caps)
        where = ("--caps %s" % caps if caps is not None else "no capabilities") if under else "without the filter"
        self.expect("%s, %s, is not %s" % (name, where, unwanted), got != unwanted, "got %s" % got)


# Hosts may switch io_uring off themselves (kernel.io_uring_disabled answers EPERM).
HOST_MAY_DENY = {"io_uring_setup"}


def check_denials(c):
    # name, the answer under the filter without capabilities, the capability that lifts it.
    cases = [("mbind", "EPERM", "SYS_NICE"), ("set_mempolicy", "EPERM", "SYS_NICE"),
             ("get_mempolicy", "EPERM", "cap_sys_nice"), ("pidfd_getfd", "EPERM", "SYS_PTRACE"),
             ("chroot", "EPERM", "SYS_CHROOT"), ("unshare", "EPERM", "SYS_ADMIN"),
             ("clone_newuts", "EPERM", "SYS_ADMIN"), ("clone3", "ENOSYS", "SYS_ADMIN"),
             ("keyctl", "EPERM", None), ("io_uring_setup", "EPERM", None),
             ("socket_alg", "EPERM", None), ("socket_vsock", "EPERM", None),
             ("personality_norandom", "EPERM", None), ("x32_getpid", "EPERM", None)]
    for name, denied, lifted_by in cases:
        host = c.answer(name, under=False)
        if host == denied and name in HOST_MAY_DENY:
            print("note: %s: this host itself answers %s (a sysctl), so the probe tells nothing here"
                  % (name, host))
            continue
        # The host answers otherwise: what follows is the filter's decision.
        c.expect("%s without the filter is not %s" % (name, denied), host != denied, "got %s" % host)
        c.probe_is(name, denied)
        # The worker pod's capabilities lift none of these (its exact set, volcano/base/job.yaml).
        c.probe_is(name, denied, caps="IPC_LOCK,SETUID,SETGID" if name == "chroot" else
                   "IPC_LOCK,SETUID,SETGID,SYS_CHROOT")
        if lifted_by:
            c.probe_is_not(name, denied, caps=lifted_by)
        else:  # never allowed, whatever the capabilities
            c.probe_is(name, denied, caps="SYS_ADMIN,SYS_PTRACE,SYS_NICE,NET_ADMIN,BPF")
    for name in ("clone_plain", "socket_inet", "personality_query"):
        c.probe_is_not(name, "EPERM")


def check_ordinary(c):
    program = ("import os, threading, subprocess\n"
               "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
               "pid = os.fork()\n"
               "if pid == 0: os._exit(7)\n"
               "assert os.waitpid(pid, 0)[1] >> 8 == 7\n"
               "print(subprocess.run(['sh', '-c', 'echo exec'], capture_output=True, text=True).stdout.strip())\n")
    proc = c.run([sys.executable, "-c", program], caps="IPC_LOCK,SETUID,SETGID,SYS_CHROOT")
    c.expect("a program with a thread, a fork and an exec runs under the filter", proc.returncode == 0
             and proc.stdout.strip() == "exec", "exit %d, %r %r" % (proc.returncode, proc.stdout, proc.stderr))
    proc = c.run(["unshare", "--user", "true"])
    c.expect("unshare --user fails under the filter", proc.returncode != 0,
             "exit %d, %s" % (proc.returncode, proc.stderr.strip()))
    proc = c.run(["bash", "-c", "bash -c 'grep -E \"^(Seccomp|NoNewPrivs):\" /proc/self/status'"])
    c.expect("a grandchild runs in filter mode (Seccomp: 2) with no_new_privs", proc.returncode == 0
             and "Seccomp:\t2" in proc.stdout and "NoNewPrivs:\t1" in proc.stdout, proc.stdout.replace("\n", " "))
    proc = c.run(["grep", "^Seccomp:", "/proc/self/status"], under=False)
    c.expect("without the launcher this process is not filtered (Seccomp: 0)", "Seccomp:\t0" in proc.stdout,
             proc.stdout.strip())


def check_usage(c):
    cases = [(["--caps", "IPC_LOCK,NOT_A_CAP", "true"], 2, "--caps: 'NOT_A_CAP' is not a Linux capability"),
             (["--caps"], 2, "--caps needs a value"),
             (["--frobnicate", "true"], 2, "unknown flag '--frobnicate'"),
             ([], 2, "no COMMAND to run"),
             (["--", "/nonexistent/commsweep-probe"], 127, "cannot run '/nonexistent/commsweep-probe'"),
             (["--help"], 0, "Usage: seccomp-runtime-default")]
    for args, code, text in cases:
        proc = subprocess.run([c.launcher] + args, capture_output=True, text=True, timeout=TIMEOUT_S)
        said = proc.stdout + proc.stderr
        c.expect("%s: exit %d, says %r" % (" ".join(args) or "(nothing)", code, text),
                 proc.returncode == code and text in said, "exit %d: %s" % (proc.returncode, said.strip()[:200]))
    proc = subprocess.run([c.launcher, "--caps", "SYS_NICE", "--list"], capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    lines = {l.split()[0]: l for l in proc.stdout.splitlines()[1:] if l.strip()}
    c.expect("--list with SYS_NICE: mbind allowed, pidfd_getfd and keyctl denied",
             proc.returncode == 0 and "mbind" not in lines and "pidfd_getfd" in lines and "keyctl" in lines,
             "%d lines" % len(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launcher")
    parser.add_argument("--probe", choices=sorted(PROBES))
    args = parser.parse_args()
    if args.probe:
        probe(args.probe)
        return 0
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        print("SKIP: the launcher reproduces the x86_64 profile only (this is %s %s)"
              % (platform.system(), platform.machine()))
        return SKIP_CODE
    if os.geteuid() != 0:
        print("SKIP: the probes compare with what root may do (chroot, unshare): not root")
        return SKIP_CODE
    with open("/proc/self/status") as f:
        mode = next((l.split()[1] for l in f if l.startswith("Seccomp:")), "0")
    if mode != "0":
        # A container's own filter (Docker's default denies unshare, keyctl, ...): the host's
        # answers, which each probe is compared with, are not the kernel's here.
        print("SKIP: this test already runs under a seccomp filter (Seccomp: %s); it needs an "
              "unfiltered root to compare with" % mode)
        return SKIP_CODE
    c = Checker(args.launcher)
    check_denials(c)
    check_ordinary(c)
    check_usage(c)
    if c.failures:
        print("FAILED: %d check(s): %s" % (len(c.failures), "; ".join(c.failures)))
        return 1
    print("ok: every probe answered as the runtime's default profile says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
