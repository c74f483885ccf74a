#!/usr/bin/env python3
"""Every bad input we could think of, given to the real CLI (one process, MPI singleton; the
agreement of ranks on usage errors is tested under mpiexec by the usage.* tests): each must
end with exit code 2 and one message naming the input (the flag, and the value, file or
key), within BOUND_S, and must not write the results file given with --json (nor leave its
temporary file behind). Writes the table of what happened to WORKDIR/bad_inputs.md.

    bad_input_check.py --commsweep BIN --workdir DIR
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from commsweep_check import Failures, verdict  # noqa: E402

BOUND_S = 30  # one case; a bad input is refused in well under a second

# A run that is not refused must stay short: tiny sweeps, the mpi backend.
SWEEP_BASE = {"--maxbytes": "1K", "--backend": "mpi", "--iters": "1", "--warmup_iters": "0"}
EP_BASE = {"--tokens": "4", "--hidden": "128", "--topk": "2", "--experts": "4",
           "--backend": "mpi", "--iters": "1", "--warmup_iters": "0"}


def sweep(label, flags, *names, positional=()):
    return (label, "sweep", list(positional), flags, names)


def ep(label, flags, *names):
    return (label, "ep", [], flags, names)


def cases(w):
    """(label, command, positional args, flags overriding the base, texts the message names).
    w: the folder of the files made by make_files."""
    return [
        sweep("size: empty", {"--minbytes": ""}, "-b/--minbytes"),
        sweep("size: negative", {"--minbytes": "-8"}, "-b/--minbytes", "-8"),
        sweep("size: unknown suffix", {"--maxbytes": "12Q"}, "-e/--maxbytes", "12Q"),
        sweep("size: suffix then junk", {"--maxbytes": "1Kx"}, "-e/--maxbytes", "1Kx"),
        sweep("size: fraction", {"--maxbytes": "1.5M"}, "-e/--maxbytes", "1.5M"),
        sweep("size: overflows 64 bits", {"--maxbytes": "99999999999999999999"}, "-e/--maxbytes", "too large"),
        sweep("size: suffix overflows", {"--maxbytes": "17179869184T"}, "-e/--maxbytes", "too large"),
        sweep("size: min > max", {"--minbytes": "1G"}, "-b/--minbytes", "-e/--maxbytes"),
        sweep("step factor 0", {"--stepfactor": "0"}, "-f/--stepfactor", "out of range"),
        sweep("step factor text", {"--stepfactor": "two"}, "-f/--stepfactor", "two"),
        sweep("step factor 1 without -i", {"--stepfactor": "1"}, "-f/--stepfactor", "-i/--stepbytes"),
        sweep("step bytes 0", {"--stepfactor": "1", "--stepbytes": "0"}, "-i/--stepbytes"),
        sweep("2^40 sizes (-b 0 -e 1T -i 1)", {"--minbytes": "0", "--maxbytes": "1T",
              "--stepfactor": "1", "--stepbytes": "1"}, "-i/--stepbytes", "sizes"),
        sweep("iters 0", {"--iters": "0"}, "-n/--iters", "out of range"),
        sweep("iters in float notation", {"--iters": "1e3"}, "-n/--iters", "1e3"),
        sweep("warm-up negative", {"--warmup_iters": "-1"}, "-w/--warmup_iters"),
        sweep("check 1001", {"--check": "1001"}, "-c/--check"),
        sweep("-d unknown type", {"--datatype": "float128"}, "-d/--datatype", "float128"),
        sweep("-d empty list", {"--datatype": ","}, "-d/--datatype", "no type"),
        sweep("-o unknown operator", {"--op": "xor"}, "-o/--op", "xor"),
        sweep("-o empty", {"--op": ""}, "-o/--op"),
        sweep("root negative", {"--root": "-1"}, "-r/--root"),
        sweep("root outside the job", {"--root": "1"}, "-r/--root", positional=["broadcast"]),
        sweep("blocking 2", {"--blocking": "2"}, "-z/--blocking"),
        sweep("-G negative", {"--cudagraph": "-1"}, "-G/--cudagraph"),
        sweep("-G with the mpi backend", {"--cudagraph": "2"}, "-G/--cudagraph", "mpi"),
        sweep("average 4", {"--average": "4"}, "-a/--average"),
        sweep("-N negative", {"--run_cycles": "-1"}, "-N/--run_cycles"),
        sweep("-T 0", {"--timeout": "0"}, "-T/--timeout"),
        sweep("-T above a week", {"--timeout": "1000000"}, "-T/--timeout"),
        sweep("-T text", {"--timeout": "5s"}, "-T/--timeout", "5s"),
        sweep("seed negative", {"--seed": "-1"}, "--seed"),
        sweep("seed above 2^63", {"--seed": "18446744073709551615"}, "--seed"),
        sweep("backend unknown", {"--backend": "gpu"}, "--backend", "gpu"),
        sweep("timer unknown", {"--timer": "wall"}, "--timer", "wall"),
        sweep("timer device on mpi", {"--timer": "device"}, "--timer", "mpi"),
        sweep("--json empty", {"--json": ""}, "--json"),
        sweep("--json in a missing folder", {"--json": w + "/missing/r.json"}, "--json", w + "/missing/r.json"),
        sweep("--json is a folder", {"--json": w}, "--json", "is a directory"),
        sweep("--json where nothing may be written", {"--json": "/proc/commsweep.json"}, "--json", "/proc/commsweep.json"),
        sweep("--fault unknown", {"--fault": "explode:1"}, "--fault", "explode"),
        sweep("--fault without rank", {"--fault": "hang"}, "--fault", "hang:1"),
        sweep("--fault rank text", {"--fault": "alloc:x"}, "--fault", "'x'"),
        sweep("--fault rank too large", {"--fault": "alloc:99999999999999"}, "--fault", "99999999999999"),
        sweep("unknown flag", {"--bogus": "1"}, "--bogus"),
        sweep("flag without value", {"--maxbytes": None}, "--maxbytes"),
        sweep("unknown test", {}, "all_gathr", positional=["all_gathr"]),
        sweep("abbreviated flag", {"--maxb": "1K"}, "--maxb"),
        ep("ep: tokens negative", {"--tokens": "-1"}, "--tokens", "-1"),
        ep("ep: tokens text", {"--tokens": "many"}, "--tokens", "many"),
        ep("ep: tokens beyond bound", {"--tokens": "99999999999"}, "--tokens"),
        ep("ep: hidden 0", {"--hidden": "0"}, "--hidden"),
        ep("ep: hidden not a multiple of 8", {"--hidden": "100"}, "--hidden", "100"),
        ep("ep: topk 0", {"--topk": "0"}, "--topk"),
        ep("ep: topk > experts", {"--topk": "8"}, "--topk", "--experts"),
        ep("ep: experts 0", {"--experts": "0"}, "--experts"),
        ep("ep: dtype unknown", {"--dtype": "fp4"}, "--dtype", "fp4"),
        ep("ep: fp8 with hidden 200", {"--dtype": "fp8", "--hidden": "200"}, "--hidden", "--dtype"),
        ep("ep: routing unknown", {"--routing": "zipf"}, "--routing", "zipf"),
        ep("ep: skew 0", {"--routing": "skewed", "--skew": "0"}, "--skew"),
        ep("ep: skew NaN", {"--routing": "skewed", "--skew": "nan"}, "--skew", "nan"),
        ep("ep: topk-groups negative", {"--topk-groups": "-1"}, "--topk-groups"),
        ep("ep: routing file not given", {"--routing": "file"}, "--routing-file"),
        ep("ep: routing file missing", {"--routing": "file", "--routing-file": w + "/absent.txt"},
           "--routing-file", w + "/absent.txt"),
        ep("ep: routing file is a folder", {"--routing": "file", "--routing-file": w}, "--routing-file", w),
        ep("ep: routing file empty", {"--routing": "file", "--routing-file": w + "/empty.txt"},
           "--routing-file", "empty.txt"),
        ep("ep: routing file bad expert", {"--routing": "file", "--routing-file": w + "/bad_expert.txt"},
           "--routing-file", "bad_expert.txt:3", "expert 9"),
        ep("ep: routing file text field", {"--routing": "file", "--routing-file": w + "/text_field.txt"},
           "--routing-file", "text_field.txt:1", "'two'"),
        ep("ep: routing file negative weight", {"--routing": "file", "--routing-file": w + "/neg_weight.txt"},
           "--routing-file", "neg_weight.txt:1", "weight"),
        ep("ep: routing file binary", {"--routing": "file", "--routing-file": w + "/binary.bin"},
           "--routing-file", "binary.bin"),
        ep("ep: routing file 16 MiB line", {"--routing": "file", "--routing-file": w + "/huge.txt"},
           "--routing-file", "huge.txt:1", "fields"),
        ep("ep: suite missing", {"--suite": w + "/absent.json"}, "--suite", "absent.json"),
        ep("ep: suite empty", {"--suite": w + "/empty.json"}, "--suite", "empty.json"),
        ep("ep: suite not JSON", {"--suite": w + "/broken.json"}, "--suite", "broken.json"),
        ep("ep: suite an array", {"--suite": w + "/array.json"}, "--suite", "array.json"),
        ep("ep: suite number overflow", {"--suite": w + "/overflow.json"}, "--suite", "overflow.json", "1e400"),
        ep("ep: suite is a folder", {"--suite": w}, "--suite"),
        ep("ep: --json in a missing folder", {"--json": w + "/missing/ep.json"}, "--json", w + "/missing/ep.json"),
        ep("ep: unknown flag", {"--bogus": "1"}, "--bogus"),
    ]


def make_files(w):
    files = {
        "empty.txt": b"",
        "bad_expert.txt": b"# rank token e1 e2\n0 0 0 1\n0 1 0 9\n0 2 1 2\n0 3 2 3\n",
        "text_field.txt": b"0 0 two 1\n",
        "neg_weight.txt": b"0 0 0 1 -0.5 1.5\n",
        "binary.bin": bytes(range(256)) * 64,
        "huge.txt": b"0 " * (8 << 20),
        "empty.json": b"",
        "broken.json": b'{"tokens": [1, 2',
        "array.json": b"[1, 2, 3]",
        "overflow.json": b'{"tokens": 1e400}',
    }
    for name, data in files.items():
        with open(os.path.join(w, name), "wb") as f:
            f.write(data)


def command(opts, case, results):
    label, kind, positional, flags, _ = case
    base = dict(SWEEP_BASE if kind == "sweep" else EP_BASE)
    base.update(flags)
    if "--json" not in base:
        base["--json"] = results
    args = [opts.commsweep] + (["ep"] if kind == "ep" else []) + positional
    for flag, value in base.items():
        args += [flag] if value is None else [flag, value]
    if flags.get("--maxbytes", "") is None:  # the flag without its value goes last
        args.remove("--maxbytes")
        args.append("--maxbytes")
    return args


def run_case(opts, index, case, fail):
    label, _, _, flags, names = case
    results = os.path.join(opts.workdir, "results-%02d.json" % index)
    cmd = command(opts, case, results)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=BOUND_S)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", ""
    elapsed = time.monotonic() - start
    messages = [l for l in err.splitlines() if l.startswith("commsweep")]
    problems = []
    if rc != 2:
        problems.append("exit code %s, expected 2" % rc)
    if len(messages) != 1:
        problems.append("%d messages" % len(messages))
    missing = [n for n in names if not any(n in m for m in messages)]
    if missing:
        problems.append("does not name %s" % ", ".join(missing))
    written = [p for p in (results, flags.get("--json") or "") if p and os.path.isfile(p)]
    written += glob.glob(os.path.join(opts.workdir, "*.tmp.*"))
    if written:
        problems.append("wrote %s" % ", ".join(written))
    for p in problems:
        fail.check(False, "%s: %s (%s)" % (label, p, " ".join(cmd[1:])))
    shown = " ".join(a if a else "''" for a in cmd[1:]).replace(opts.workdir, "$W")
    message = (messages[0] if messages else "(none)").replace(opts.workdir, "$W")
    if len(message) > 160:
        message = message[:157] + "..."
    return "| %s | `%s` | %s | %.1f | %s | %s |" % (
        label, shown.replace("|", "\\|"), rc, elapsed, message.replace("|", "\\|"),
        "ok" if not problems else "FAIL: " + "; ".join(problems))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commsweep", required=True)
    parser.add_argument("--workdir", required=True)
    opts = parser.parse_args()
    opts.workdir = os.path.abspath(opts.workdir)
    os.makedirs(opts.workdir, exist_ok=True)
    for stale in glob.glob(os.path.join(opts.workdir, "*")):
        if os.path.isfile(stale):
            os.remove(stale)
    files = os.path.join(opts.workdir, "files")
    os.makedirs(files, exist_ok=True)
    make_files(files)
    fail = Failures()
    rows = [run_case(opts, i, c, fail) for i, c in enumerate(cases(files))]
    table = ["| input | command ($W: the test's folder) | exit | s | message | verdict |",
             "|---|---|---|---|---|---|"] + rows
    with open(os.path.join(opts.workdir, "bad_inputs.md"), "w") as f:
        f.write("\n".join(table) + "\n")
    print("\n".join(table))
    return verdict(fail, "%d bad inputs refused with exit code 2, named, nothing written"
                   % len(rows), "", "")


if __name__ == "__main__":
    sys.exit(main())
