#!/usr/bin/env python3
"""docs.planted_time: the docs check must fail on README.md with one time made 1000x larger,
naming that line. The copy keeps README.md up to the end of its first example (its exports and
run 1, whose first table row gets the planted time), so that the test takes seconds.

Usage: planted_time.py REPO CHECK_DOCS_PY COMMSWEEP_BIN
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_magnitudes  # noqa: E402

PLANTED_FACTOR = 1000


def plant(lines):
    """(the lines up to the end of the first console block, with its first table row's first
    time column times PLANTED_FACTOR; the planted line's number; the planted value)."""
    start = next(i for i, l in enumerate(lines) if l.startswith("```console"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    table = None
    for i in range(start + 1, end):
        line = lines[i]
        if doc_magnitudes.is_names_row(line):
            table = doc_magnitudes.Table(line)
        elif table and line.startswith("#") and "(" in line:
            table.add_units(line)
        elif table and not line.startswith("#"):
            words = list(re.finditer(r"\S+", line))
            column = next(k for k, kind in enumerate(table.kinds) if kind and kind[0] == "time")
            m = words[column]
            planted = f"{float(m.group()) * PLANTED_FACTOR:.1f}"
            lines[i] = line[:m.start()] + planted + line[m.end():]
            return lines[:end + 1], i + 1, planted
    raise SystemExit("FAIL: no table row with a time column in README.md's first console block")


def main():
    repo, checker, binary = sys.argv[1:4]
    with open(os.path.join(repo, "README.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    kept, line, planted = plant(lines)
    with tempfile.TemporaryDirectory(prefix="planted-time-") as scratch:
        page = os.path.join(scratch, "README.md")
        with open(page, "w", encoding="utf-8") as f:
            f.write("\n".join(kept) + "\n")
        proc = subprocess.run([sys.executable, checker, "--repo", repo, "--commsweep", binary,
                               "--timeout", "120", page], capture_output=True, text=True,
                              timeout=600)
    out = proc.stdout + proc.stderr
    named = f"README.md:{line}: time {planted} us shown"
    if proc.returncode == 1 and named in out:
        print(f"PASS: README.md:{line}: a time planted {PLANTED_FACTOR}x larger ({planted} us) "
              f"fails the docs check:\n{out}")
        return 0
    print(f"FAIL: expected exit 1 naming {named!r}; got exit {proc.returncode}\n{out}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
