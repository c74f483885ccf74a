#!/usr/bin/env python3
"""The progress line: shown on a terminal, absent otherwise. A singleton run (no mpiexec: Open
MPI forwards a rank's stderr through a pipe, never a terminal) with stderr on a pseudo-terminal
must draw "[k/n] test size  elapsed ...  ETA ..." and erase it; with stderr on a pipe, stderr holds
no progress text. stdout (the table) is a file in both cases and never holds it.

    progress_check.py --commsweep BIN --workdir DIR
"""
import argparse
import os
import pty
import subprocess
import sys

ARGS = ["all_reduce", "-b", "8", "-e", "64K", "--backend", "mpi", "-w", "1", "-n", "2"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    failures = []

    def expect(ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    master, slave = pty.openpty()
    with open(os.path.join(a.workdir, "tty-stdout.txt"), "w+") as out:
        p = subprocess.Popen([a.commsweep] + ARGS, stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            seen += chunk
        rc = p.wait(timeout=120)
        out.seek(0)
        table = out.read()
    text = seen.decode(errors="replace")
    expect(rc == 0, f"singleton sweep with stderr on a terminal: exit {rc}")
    # 14 sizes from 8 B to 64 KiB, one type, one operator, one cycle.
    expect("[1/14] all_reduce 8  elapsed" in text, f"the first row's progress: {text[:120]!r}")
    expect("[14/14] all_reduce 64K" in text, "the last row's progress")
    expect("ETA" in text, "an ETA is shown")
    expect(text.endswith("\r\x1b[K"), "the line is erased at the end")
    expect("elapsed" not in table, "stdout (the table) holds no progress text")

    p = subprocess.run([a.commsweep] + ARGS, capture_output=True, text=True, timeout=120)
    expect(p.returncode == 0 and "elapsed" not in p.stderr and "elapsed" not in p.stdout,
           f"stderr on a pipe: no progress line (exit {p.returncode}, stderr {p.stderr[:120]!r})")
    if failures:
        sys.exit(1)
    print("progress_check: all checks passed")


if __name__ == "__main__":
    main()
