#!/usr/bin/env python3
"""A collective is its files: `commsweep list` must name exactly the collectives that have an
oracle in tests/collectives/<name>.py, in the same order (each oracle's ORDER). A collective
without its test, or a test without its collective, fails here, naming it.

--planted: shows the check failing on a planted oracle (a test without a collective) and on a
removed one (a collective without its test), in copies of the folder, then passing again."""

import subprocess
import sys

sys.dont_write_bytecode = True
from expected_sweep import COLLECTIVES_DIR, load_tests  # noqa: E402
from registered_files import check_main  # noqa: E402


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
    return check_main("collective_oracles_check", COLLECTIVES_DIR, problems, "sendrecv", "planted_test", "all_gather",
                      lambda commsweep: "%d collectives, each with its test" % len(listed(commsweep)))


if __name__ == "__main__":
    sys.exit(main())
