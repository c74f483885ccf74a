#!/usr/bin/env python3
"""A collective is its files: `commsweep list` must name exactly the collectives that have an
oracle in tests/collectives/<name>.py, in the same order (each oracle's ORDER). A collective
without its test, or a test without its collective, fails here, naming it.

--planted: shows the check failing on a planted oracle (a test without a collective) and on a
removed one (a collective without its test), in copies of the folder, then passing again."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from expected_sweep import COLLECTIVES_DIR, load_tests  # noqa: E402


def listed(commsweep):
    out = subprocess.run([commsweep, "list"], check=True, capture_output=True, text=True).stdout
    # `commsweep list` prints the collectives, then the other workloads with a note ("ep  (...)").
    return [line.split()[0] for line in out.splitlines() if line.strip() and "(" not in line]


def problems(commsweep, folder):
    names = listed(commsweep)
    oracles = [t.name for t in load_tests(folder)]
    found = []
    for name in names:
        if name not in oracles:
            found.append("the collective %s has no test: tests/collectives/%s.py" % (name, name))
    for name in oracles:
        if name not in names:
            found.append("tests/collectives/%s.py tests no collective of `commsweep list`" % name)
    if not found and names != oracles:
        found.append("`commsweep list` prints %s; the oracles' ORDER gives %s" % (names, oracles))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--planted", action="store_true")
    args = p.parse_args()
    found = problems(args.commsweep, COLLECTIVES_DIR)
    for line in found:
        print("collective_oracles_check: " + line)
    if found:
        return 1
    if args.planted:
        with tempfile.TemporaryDirectory() as tmp:
            extra = os.path.join(tmp, "extra")
            shutil.copytree(COLLECTIVES_DIR, extra)
            shutil.copy(os.path.join(extra, "sendrecv.py"), os.path.join(extra, "planted_test.py"))
            missing = os.path.join(tmp, "missing")
            shutil.copytree(COLLECTIVES_DIR, missing)
            os.remove(os.path.join(missing, "all_gather.py"))
            for folder, name in ((extra, "planted_test"), (missing, "all_gather")):
                seen = problems(args.commsweep, folder)
                print("planted (%s): %s" % (name, seen))
                if not any(name in line for line in seen):
                    print("collective_oracles_check: the planted %s was not caught" % name)
                    return 1
    print("collective_oracles_check: %d collectives, each with its test" % len(listed(args.commsweep)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
