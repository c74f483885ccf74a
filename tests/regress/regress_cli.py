"""Shared by the regression checkers: run commsweep, doctor results files, say what failed."""
import copy
import json
import os
import subprocess
import sys


class Check:
    """Collects failures; ends the checker with exit 1 and every failure printed."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def expect(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            self.failures.append(what)

    def finish(self):
        if self.failures:
            print(f"{self.name}: {len(self.failures)} failure(s)")
            sys.exit(1)
        print(f"{self.name}: all checks passed")


def run(cmd, timeout=120):
    """Runs a command; returns (exit code, stdout, stderr)."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def load(path):
    with open(path) as f:
        return json.load(f)


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def slower(doc, size, factor, halves=("out_of_place", "in_place"), rows=None):
    """A copy of a results document with every row of `size` `factor` times slower, both halves
    (a regression slows the row; one half alone is a disturbed moment, docs/regressions.md);
    with `rows`, only those of its rows (0: the first cycle's)."""
    out = copy.deepcopy(doc)
    hits = 0
    seen = -1
    for row in out["rows"]:
        if row["size_bytes"] != size:
            continue
        seen += 1
        if rows is not None and seen not in rows:
            continue
        for half in halves:
            t = row[half]
            t["time_us"] *= factor
            t["algbw_gbps"] /= factor
            t["busbw_gbps"] /= factor
            t["slowest_time_us"] *= factor
            t["rank_time_us"] = [x * factor for x in t["rank_time_us"]]
        hits += 1
    assert hits, f"no row of size {size}"
    return out


def table_line(stdout, *words):
    """The verdict table's line holding every word (as whole columns), or None."""
    for line in stdout.splitlines():
        cols = line.split()
        if all(w in cols for w in words):
            return line
    return None


def fresh_dir(path):
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if os.path.isdir(full):
            import shutil
            shutil.rmtree(full)
        else:
            os.remove(full)
    return path


def compare_exit_codes(commsweep):
    """`commsweep compare`'s exit codes by name ("ok", "regression", "bad input", "wrong data"),
    read from its --help ("Exit codes (docs/failures.md), the first that applies: 2 bad input,
    ...; else 0 ok."): the checks name the code by what it means, not by its number."""
    import re
    rc, out, err = run([commsweep, "compare", "--help"])
    text = " ".join(out[out.index("Exit codes"):].split())
    codes = {m.group(2): int(m.group(1)) for m in re.finditer(r"(\d+) ([a-z]+(?: [a-z]+)?)", text)}
    for meaning in ("ok", "regression", "bad input", "wrong data"):
        assert meaning in codes, f"compare --help names no exit code for {meaning!r}: {text!r}"
    codes["pass"] = codes["ok"]
    return codes
