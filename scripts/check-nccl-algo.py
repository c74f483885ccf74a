#!/usr/bin/env python3
"""Checks NCCL's algorithm, protocol and channels per row of a commsweep results file against
NCCL's own TUNING INFO lines of the same run.

commsweep reads NCCL's choice per collective from its NCCL profiler plugin (docs/collectives.md,
"What NCCL chose"); NCCL also prints that choice, on rank 0, when NCCL_DEBUG=INFO and
NCCL_DEBUG_SUBSYS includes TUNING. In NCCL 2.28 (src/enqueue.cc) each launched collective's line is

    <host>:<pid>:<tid> [<dev>] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..15}

(bytes = the call's count x the type's size; channels = Hi - Lo + 1). This script reads every
such line of the logs given, keyed by (function, bytes), and says per row and half whether the
row's algorithm, protocol and channels are one of the choices NCCL printed for that key, and
whether NCCL printed only that one. Rows of send/receive tasks (sendrecv, alltoall, gather: NCCL
prints no TUNING line for them, the profiler says "P2P") and rows without a choice (mpi backend)
are listed as not checked.

    scripts/check-nccl-algo.py RESULTS.json LOG [LOG...]     (a LOG may be a folder: its *.log files)

Exit status: 0 every checked row equals NCCL's lines; 1 a mismatch, or a row with no line to check
it against; 2 bad input (no results file, no TUNING line in any log, no row to check).
"""
import argparse
import collections
import json
import os
import re
import sys

# commsweep's test name -> NCCL's function name (ncclFuncToString, src/collectives.cc).
NCCL_FUNC = {"all_reduce": "AllReduce", "all_gather": "AllGather", "reduce_scatter": "ReduceScatter",
             "broadcast": "Broadcast", "reduce": "Reduce"}
# commsweep's type name -> bytes per element.
TYPE_BYTES = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "half": 2, "float": 4,
              "double": 8, "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1}
TUNING = re.compile(r"NCCL INFO (\w+): (\d+) Bytes -> Algo (\S+) proto (\S+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}")


def parse_tuning_line(line):
    """(func, bytes, (algo, proto, channels)) of a TUNING line, or None."""
    m = TUNING.search(line)
    if not m:
        return None
    func, nbytes, algo, proto, lo, hi = m.groups()
    return func, int(nbytes), (algo, proto, int(hi) - int(lo) + 1)


def read_tuning(paths):
    """{(func, bytes): Counter of choices} over every log file."""
    seen = collections.defaultdict(collections.Counter)
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parsed = parse_tuning_line(line)
                if parsed:
                    func, nbytes, choice = parsed
                    seen[(func, nbytes)][choice] += 1
    return seen


def log_files(args):
    files = []
    for path in args:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".log"))
        else:
            files.append(path)
    return files


def element_bytes(type_name):
    if type_name not in TYPE_BYTES:
        raise ValueError(f"unknown type {type_name!r}")
    return TYPE_BYTES[type_name]


def judge_half(row, half, tuning):
    """(verdict, text): verdict is OK, MISMATCH, NO_LINE or NOT_CHECKED."""
    nccl = row[half].get("nccl")
    if nccl is None:
        return "NOT_CHECKED", "no \"nccl\" field (a file from before issue 26)"
    if nccl["channels"] is None:
        return "NOT_CHECKED", nccl["algorithm"]
    if nccl["algorithm"] == "P2P" or row["test"] not in NCCL_FUNC:
        return "NOT_CHECKED", "send/receive tasks: NCCL prints no TUNING line for them"
    key = (NCCL_FUNC[row["test"]], row["count"] * element_bytes(row["type"]))
    mine = (nccl["algorithm"], nccl["protocol"], nccl["channels"])
    shown = f"{mine[0]}/{mine[1]}/{mine[2]}"
    if key not in tuning:
        return "NO_LINE", f"{shown}: NCCL printed no TUNING line for {key[0]} of {key[1]} bytes"
    choices = tuning[key]
    theirs = ", ".join(f"{a}/{p}/{c} x{n}" for (a, p, c), n in choices.most_common())
    if mine not in choices:
        return "MISMATCH", f"{shown}; NCCL's TUNING lines: {theirs}"
    if len(choices) > 1:
        return "OK", f"{shown} (NCCL printed several choices for {key[1]} bytes, of other types or halves: {theirs})"
    return "OK", shown


def check(results, tuning):
    """Lines to print and the counts by verdict."""
    lines, counts = [], collections.Counter()
    for row in results.get("rows", []):
        for half in ("out_of_place", "in_place"):
            verdict, text = judge_half(row, half, tuning)
            counts[verdict] += 1
            lines.append(f"{verdict:<11} {row['test']} {row['type']} {row['size_bytes']} B {half}: {text}")
    return lines, counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a commsweep results file (--json)")
    ap.add_argument("logs", nargs="+", help="NCCL log files of the same run (NCCL_DEBUG_FILE), or folders of *.log")
    args = ap.parse_args(argv)
    try:
        with open(args.results, encoding="utf-8") as f:
            results = json.load(f)
        tuning = read_tuning(log_files(args.logs))
    except (OSError, ValueError) as e:
        print(f"check-nccl-algo: {e}", file=sys.stderr)
        return 2
    if not tuning:
        print("check-nccl-algo: no TUNING line in the logs (run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING; "
              "NCCL prints them on rank 0)", file=sys.stderr)
        return 2
    try:
        lines, counts = check(results, tuning)
    except (KeyError, ValueError, TypeError) as e:
        print(f"check-nccl-algo: {args.results}: not a commsweep results file: {e}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    checked = counts["OK"] + counts["MISMATCH"] + counts["NO_LINE"]
    print(f"check-nccl-algo: {counts['OK']} of {checked} checked halves equal NCCL's TUNING lines; "
          f"{counts['MISMATCH']} mismatch, {counts['NO_LINE']} without a line, {counts['NOT_CHECKED']} not checked")
    if checked == 0:
        print("check-nccl-algo: no row to check (mpi backend, or only send/receive tests)", file=sys.stderr)
        return 2
    return 1 if counts["MISMATCH"] or counts["NO_LINE"] else 0


if __name__ == "__main__":
    sys.exit(main())
