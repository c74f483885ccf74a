#!/usr/bin/env python3
"""Runs `commsweep ep` under mpiexec and checks what it did: exit code, table, JSON, messages.

    ep_check.py --commsweep BIN --np N --expect ok --schema SCHEMA --workdir DIR \
        -- --tokens 0,16 --experts 8 --backend mpi

The arguments after -- are `commsweep ep`'s; the checker puts "ep" in front of them.

What `commsweep ep` prints on stdout (rank 0 only), and this checker expects:

    # World: ... / # <backend note>   any '#' lines before the table (ignored)
    # commsweep version V (HASH) backend B ...
    # EP test starting: ep
    # nRanks N nHosts H ...            the parameters line
    #
    # Using devices
    #  Rank  0 Group  0 Pid ... device ... [PCI] NAME     one per rank, as the collectives
    #
    three column-header lines, exactly EP_COLUMN_HEADER below (src/report/ep_table.cpp)
    one row per configuration and implementation, 13 fields: tokens hidden topk experts dtype
      routing impl, then
      time (us), bandwidth (GB/s) and #wrong of the dispatch, and the same of the combine;
      in the order routing, dtype, experts, topk, hidden, tokens, impl (innermost)
    # Out of bounds values : N OK|FAILED
    # bandwidth = bytes received per rank in dispatch (sent in combine), one copy per ...
    # time = per rank the median over the timed iterations, then the mean over ranks; ...
    #
    # EP test concluded: ep
    #
    # Results written to FILE            with --json
  Exit code 0, or 8 with wrong elements (wrong data); usage errors exit 2 with one 'commsweep: ...' line on
  stderr naming the flag (or the --suite file and key), before any row.

The JSON (--json): schema commsweep.results/2 with "rows": [] and one "ep_rows" record per
table row, equal to it. Per rank r, with a "copy" one (token, destination rank) pair and
copy_bytes = 2*hidden (bf16) or hidden + 4*hidden/128 (fp8): rank_bytes_deepep[r] = copies
received in the dispatch (its own tokens included) x copy_bytes; rank_bytes_fabric[r] the same
without its own. The combine sends the same copies back in bf16 (2*hidden bytes each). A
phase's bandwidth_gbps (fabric_bandwidth_gbps) is the mean over ranks of bytes / rank_time_us
/ 1e3, a rank with time 0 counting 0; time_us the mean of rank_time_us; slowest_rank the
first rank with the longest time. summary: wrong_total the sum of every wrong, ok, complete,
avg_busbw_gbps 0. For balanced and file routings the bytes are checked exactly (routing.hpp's
definitions), for the others against their bounds.

--expect: ok (exit 0, every #wrong 0), wrong (exit 8 with --fault wrong-element:RANK: a FAILED
footer, stderr naming --rank), usage (exit 2, --flag named), help (exit 0, every flag listed).
Standard library only.
"""

import argparse
import itertools
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # the modules beside this file: no __pycache__ in the sources
from commsweep_check import (SKIP_CODE, Failures, check_usage, gpu_count, launcher,  # noqa: E402
                             run, verdict)
from nccl_table import DEVICE_LINE, NCCL_LOG_LINE, VERSION_LINE  # noqa: E402
from results_json import check_provenance, close, print_tolerance, validate  # noqa: E402

# The column header (src/report/ep_table.cpp; tests/unit/golden/ep_table.txt), blanks at the
# ends of lines ignored.
EP_COLUMN_HEADER = [
    '#                                                                    dispatch                   combine'
    '            back to back',
    '# tokens   hidden  topk  experts  dtype   routing       impl     time       bw  #wrong     time       bw  #wrong'
    '     pair  spread',
    '#(/rank)                                                         (us)   (GB/s)             (us)   (GB/s)'
    '             (us)     (%)',
]
ROW_FIELDS = 15
# Fields of a row: where each phase's time, bandwidth and #wrong start; then the back-to-back
# pair's period and the ranks' spread.
DISPATCH, COMBINE, PAIR = 7, 10, 13
BANDWIDTH_LINE = ("# bandwidth = bytes received per rank in dispatch (sent in combine), one copy "
                  "per (token, destination rank) including the rank's own (DeepEP's accounting); "
                  "the JSON also has fabric bytes, excluding self")
TIME_LINE_START = "# time = per rank the median over the timed iterations, then the mean over ranks"
FRESH_LINE_START = ("# fresh entry: the ranks start each timed dispatch and combine together, after a barrier; "
                    "pair = the same iterations again back to back")
FP8_BLOCK = 128  # elements per fp32 scale (DeepEP; src/pattern/ep_pattern.hpp)

HELP_FLAGS = ["--tokens", "--hidden", "--topk", "--experts", "--dtype", "--routing", "--skew",
              "--routing-file", "--topk-groups", "--iters", "--warmup_iters", "--check",
              "--timeout", "--seed", "--backend", "--json", "--suite", "--help"]

# Each setting: command-line names, suite key, default (as the command line would give it).
SETTINGS = [
    (("--tokens",), "tokens", "128,256,512,1024,2048,4096"),
    (("--hidden",), "hidden", "7168"),
    (("--topk",), "topk", "8"),
    (("--experts",), "experts", "256"),
    (("--dtype",), "dtype", "bf16"),
    (("--routing",), "routing", "randn"),
    (("--skew",), "skew", "1.0"),
    (("--routing-file",), "routing_file", None),
    (("--topk-groups",), "topk_groups", "0"),
    (("-n", "--iters"), "iters", "20"),
    (("-w", "--warmup_iters"), "warmup", "5"),
    (("-c", "--check"), "check", "1"),
    (("--seed",), "seed", None),
    (("--ep-impl",), "impl", "alltoallv"),
]
OTHER_FLAGS = {"--backend": "backend", "--json": "json", "--suite": "suite", "-T": "timeout",
               "--timeout": "timeout"}


class EpSweep:
    """The configurations `commsweep ep ARGS` must print, from its flags and --suite file."""

    def __init__(self, args):
        given, self.other = {}, {}
        names = {n: key for ns, key, _ in SETTINGS for n in ns}
        i = 0
        while i < len(args):
            flag, _, value = args[i].partition("=")
            if not value and i + 1 < len(args) and (flag in names or flag in OTHER_FLAGS):
                value, i = args[i + 1], i + 1
            if flag in names:
                given[names[flag]] = value
            elif flag in OTHER_FLAGS:
                self.other[OTHER_FLAGS[flag]] = value
            i += 1
        suite, suite_dir = {}, ""
        if "suite" in self.other:
            with open(self.other["suite"]) as f:
                suite = json.load(f)  # a suite of one sweep: a list, or a mapping of "sweeps"
            suite = (suite["sweeps"] if isinstance(suite, dict) else suite)[0]
            suite_dir = os.path.dirname(self.other["suite"])
        self.values = {}
        for _, key, default in SETTINGS:
            if key in given:
                self.values[key] = split(given[key])
            elif key in suite:
                v = suite[key]
                self.values[key] = [str(x) for x in (v if isinstance(v, list) else [v])]
                if key == "routing_file" and not os.path.isabs(v):
                    self.values[key] = [os.path.join(suite_dir, v)]
            elif default is not None:
                self.values[key] = split(default)
        ints = lambda key: [int(x, 0) for x in self.values[key]]  # noqa: E731
        self.tokens, self.hidden = ints("tokens"), ints("hidden")
        self.topk, self.experts = ints("topk"), ints("experts")
        self.dtypes, self.routings = self.values["dtype"], self.values["routing"]
        self.impls = self.values["impl"]
        self.iters = int(self.values["iters"][0])
        self.checked = int(self.values["check"][0]) != 0  # -c 0: every #wrong is N/A, JSON null
        self.routing_file = self.values.get("routing_file", [None])[0]
        self.backend = self.other.get("backend", "auto")

    def expected_rows(self):
        """(tokens, hidden, topk, experts, dtype, routing, impl) of each row, in the printed
        order."""
        return [(t, h, k, e, d, r, i) for r, d, e, k, h, t, i in itertools.product(
            self.routings, self.dtypes, self.experts, self.topk, self.hidden, self.tokens,
            self.impls)]


def split(text):
    return [p for p in text.split(",") if p]


class EpTable:
    def __init__(self):
        self.version = None     # (commsweep version, git hash, backend)
        self.started = False
        self.parameters = ""
        self.devices = []
        self.header = []
        self.rows = []
        self.oob = None
        self.conventions = []
        self.concluded = False


def parse_ep_table(stdout, fail):
    t, previous = EpTable(), ""
    for line in stdout.splitlines():
        if NCCL_LOG_LINE.match(line):
            continue
        if line == "# EP test starting: ep":
            fail.check(not t.started, "a second '# EP test starting' line")
            v = VERSION_LINE.match(previous)
            fail.check(v is not None, "no '# commsweep version ...' line before %r" % line)
            t.version = v.groups() if v else None
            t.started = True
        elif not t.started or t.concluded:
            fail.check(line.startswith("#"), "output outside the table: %r" % line)
        elif not line.startswith("#"):
            t.rows.append(line.split())
        elif line.startswith("# nRanks "):
            t.parameters = line
        elif DEVICE_LINE.match(line):
            t.devices.append(DEVICE_LINE.match(line).groups())
        elif line.rstrip() in EP_COLUMN_HEADER:
            t.header.append(line.rstrip())
        elif line.startswith("# Out of bounds values : "):
            m = re.fullmatch(r"# Out of bounds values : (\d+) (OK|FAILED)", line.rstrip())
            if fail.check(m is not None, "malformed footer %r" % line):
                t.oob = (int(m.group(1)), m.group(2))
        elif line.startswith("# bandwidth = ") or line.startswith("# time = ") or line.startswith("# fresh entry: "):
            t.conventions.append(line)
        elif line == "# EP test concluded: ep":
            t.concluded = True
        previous = line
    return t


def well_formed(row):
    try:
        if len(row) != ROW_FIELDS:
            return False
        [int(row[i]) for i in (0, 1, 2, 3)]
        [int(row[i]) for i in (DISPATCH + 2, COMBINE + 2) if row[i] != "N/A"]
        [float(row[i]) for i in (DISPATCH, DISPATCH + 1, COMBINE, COMBINE + 1, PAIR + 1)]
        if row[PAIR] != "N/A":
            float(row[PAIR])
        return True
    except ValueError:
        return False


def row_key(row):
    return (int(row[0]), int(row[1]), int(row[2]), int(row[3]), row[4], row[5], row[6])


def check_table(t, sweep, nranks, mode, fail):
    fail.check(t.started, "no '# EP test starting: ep' line")
    fail.check(t.parameters.startswith("# nRanks %d nHosts " % nranks),
               "parameters line %r does not start '# nRanks %d nHosts '" % (t.parameters, nranks))
    fail.check([int(d[0]) for d in t.devices] == list(range(nranks)),
               "device lines for ranks %s, expected 0..%d" % ([d[0] for d in t.devices], nranks - 1))
    fail.check(t.header == EP_COLUMN_HEADER, "column header is not the EP layout:\n%s"
               % "\n".join(t.header))
    fail.check(t.oob is not None, "no '# Out of bounds values' footer")
    fail.check(BANDWIDTH_LINE in t.conventions, "no footer line stating DeepEP's byte convention "
               "(%r)" % BANDWIDTH_LINE)
    fail.check(any(c.startswith(TIME_LINE_START) for c in t.conventions),
               "no footer line stating the median-over-iterations rule")
    fail.check(any(c.startswith(FRESH_LINE_START) for c in t.conventions),
               "no footer line saying what fresh entry, pair and spread are")
    fail.check(t.concluded, "no '# EP test concluded: ep' line")
    for row in t.rows:
        fail.check(well_formed(row), "row is not %d well-formed fields: %s"
                   % (ROW_FIELDS, " ".join(row)))
    if not all(well_formed(r) for r in t.rows):
        return False
    for r in t.rows:
        marks = {r[DISPATCH + 2] == "N/A", r[COMBINE + 2] == "N/A"}
        fail.check(marks == {not sweep.checked}, "%s: #wrong %s and %s %s"
                   % (" ".join(r[:7]), r[DISPATCH + 2], r[COMBINE + 2],
                      "with the check on" if sweep.checked else "with -c 0 (N/A expected)"))
    want = sweep.expected_rows()
    got = [row_key(r) for r in t.rows]
    if fail.check(got == want, "rows (tokens, hidden, topk, experts, dtype, routing, impl) "
                  "differ from the %d expected; first difference: %s"
                  % (len(want), first_diff(got, want))):
        wrong_rows = [r for r in t.rows if r[DISPATCH + 2] not in ("0", "N/A") or r[COMBINE + 2] not in ("0", "N/A")]
        if mode == "ok":
            for r in wrong_rows:
                fail.check(False, "wrong elements: %s" % " ".join(r))
        else:
            fail.check(len(wrong_rows) > 0, "no row with wrong elements")
    if t.oob:
        total = sum(int(w) for r in t.rows for w in (r[DISPATCH + 2], r[COMBINE + 2]) if w != "N/A")
        fail.check(t.oob == (total, "OK" if total == 0 else "FAILED"),
                   "footer says %d %s, the rows %d wrong" % (t.oob + (total,)))
    return True


def first_diff(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "row %d is %s, expected %s" % (i, g, w)
    if len(got) != len(want):
        return "%d rows printed, %d expected" % (len(got), len(want))
    return "none"


def copy_bytes(hidden, dtype):
    """DeepEP's bytes of one dispatched token: bf16, or e4m3 plus an fp32 scale per 128."""
    return 2 * hidden if dtype == "bf16" else hidden + 4 * (hidden // FP8_BLOCK)


def expected_copies(rec, nranks, sweep):
    """Per destination rank (copies received, copies from itself), where the routing fixes
    them; None for the random routings."""
    e_per_rank = rec["experts"] // nranks
    if rec["routing"] == "balanced":
        per_source = [0] * nranks
        for t in range(rec["tokens"]):
            for d in {((t * rec["topk"] + j) % rec["experts"]) // e_per_rank
                      for j in range(rec["topk"])}:
                per_source[d] += 1
        return [(nranks * c, c) for c in per_source]  # every rank routes alike
    if rec["routing"] == "file":
        received, own = [0] * nranks, [0] * nranks
        for source, _, experts in read_routing_fixture(sweep.routing_file, rec["topk"]):
            for d in {e // e_per_rank for e in experts}:
                received[d] += 1
                own[d] += d == source
        return list(zip(received, own))
    return None


def read_routing_fixture(path, topk):
    """(rank, token, experts) of each line of a routing file (routing.hpp's format)."""
    entries = []
    with open(path) as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if fields:
                entries.append((int(fields[0]), int(fields[1]),
                                [int(x) for x in fields[2:2 + topk]]))
    return entries


def check_phase(p, printed, bytes_, fabric, nranks, where, fail):
    p_time, p_bw, p_wrong = printed
    for field, text in (("time_us", p_time), ("bandwidth_gbps", p_bw)):
        fail.check(abs(p[field] - float(text)) <= print_tolerance(text) * (1 + 1e-6),
                   "%s: %s %r, table %s" % (where, field, p[field], text))
    fail.check((p["wrong"] is None) == (p_wrong == "N/A") and (p["wrong"] is None or p["wrong"] == int(p_wrong)),
               "%s: wrong %r, table %s" % (where, p["wrong"], p_wrong))
    times = p["rank_time_us"]
    if not fail.check(len(times) == nranks, "%s: %d per-rank times for %d ranks"
                      % (where, len(times), nranks)):
        return
    slowest = times.index(max(times))
    fail.check(p["slowest_rank"] == slowest and p["slowest_time_us"] == times[slowest],
               "%s: slowest rank %r (%r us), the times %r" % (where, p["slowest_rank"],
                                                              p["slowest_time_us"], times))
    fail.check(close(p["time_us"], sum(times) / nranks),
               "%s: time_us %r is not the mean of %r" % (where, p["time_us"], times))
    for field, b in (("bandwidth_gbps", bytes_), ("fabric_bandwidth_gbps", fabric)):
        # bytes / us = 1e6 B/s; GB/s = 1e9 B/s
        want = sum(b[r] / times[r] / 1e3 for r in range(nranks) if times[r] > 0) / nranks
        fail.check(close(p[field], want, rel=1e-9, abs_tol=1e-9),
                   "%s: %s %r, the mean of bytes / time over ranks is %r (bytes %s)"
                   % (where, field, p[field], want, b))


def check_back_to_back(rec, row, nranks, sweep, where, fail):
    """The back-to-back pass and the ranks' spread: the JSON's figures as the table prints them."""
    b = rec.get("back_to_back")
    if sweep.iters == 0:
        fail.check(b is None and row[PAIR] == "N/A", "%s: back_to_back %r with -n 0 (table %s)" % (where, b, row[PAIR]))
        return
    if not fail.check(b is not None, "%s: no back_to_back with -n %d" % (where, sweep.iters)):
        return
    periods = b["rank_period_us"]
    fail.check(b["pairs"] == sweep.iters, "%s: back_to_back pairs %r, -n %d" % (where, b["pairs"], sweep.iters))
    fail.check(len(periods) == nranks and b["period_us"] == max(periods) and all(p > 0 for p in periods),
               "%s: back_to_back period %r is not the slowest of %r" % (where, b["period_us"], periods))
    fail.check(abs(b["period_us"] - float(row[PAIR])) <= print_tolerance(row[PAIR]) * (1 + 1e-6),
               "%s: back_to_back period %r, table %s" % (where, b["period_us"], row[PAIR]))
    spreads = []
    for phase in ("dispatch", "combine"):
        p = rec[phase]
        times = p["rank_time_us"]
        want = (max(times) - min(times)) / p["time_us"] * 100 if p["time_us"] > 0 else 0.0
        fail.check(close(p["rank_spread_pct"], want, rel=1e-9, abs_tol=1e-9),
                   "%s %s: rank_spread_pct %r, the times %r give %r" % (where, phase, p["rank_spread_pct"], times, want))
        spreads.append(p["rank_spread_pct"])
    fail.check(abs(max(spreads) - float(row[PAIR + 1])) <= 0.05 + 1e-9,
               "%s: spread %r%%, table %s" % (where, max(spreads), row[PAIR + 1]))


def check_bytes(rec, nranks, sweep, where, fail):
    """The byte counts against DeepEP's definition. Returns the combine's (deepep, fabric)."""
    deepep, fabric = rec["rank_bytes_deepep"], rec["rank_bytes_fabric"]
    if not fail.check(len(deepep) == nranks and len(fabric) == nranks,
                      "%s: %d and %d per-rank byte counts for %d ranks"
                      % (where, len(deepep), len(fabric), nranks)):
        return None
    unit = copy_bytes(rec["hidden"], rec["dtype"])
    ok = fail.check(all(b % unit == 0 for b in deepep + fabric),
                    "%s: bytes %s / %s are not whole copies of %d bytes" % (where, deepep, fabric, unit))
    copies = [b // unit for b in deepep]
    remote = [b // unit for b in fabric]
    tokens = rec["tokens"]
    fail.check(all(0 <= copies[r] - remote[r] <= tokens for r in range(nranks)),
               "%s: own copies (deepep - fabric) %s outside 0..%d"
               % (where, [c - f for c, f in zip(copies, remote)], tokens))
    # Each token goes once to each distinct rank among its top-k experts' ranks.
    most = nranks * tokens * min(rec["topk"], nranks)
    fail.check(nranks * tokens <= sum(copies) <= most, "%s: %d copies in all, outside %d..%d"
               % (where, sum(copies), nranks * tokens, most))
    want = expected_copies(rec, nranks, sweep)
    if want is not None and ok:
        got = list(zip(copies, [c - f for c, f in zip(copies, remote)]))
        fail.check(got == want, "%s: (copies received, own) per rank %s, the %s routing gives %s"
                   % (where, got, rec["routing"], want))
    return ([c * 2 * rec["hidden"] for c in copies], [c * 2 * rec["hidden"] for c in remote])


def check_ep_json(doc, schema, t, sweep, nranks, args, fail):
    errors = validate(doc, schema, schema)
    for e in errors[:20]:
        fail.check(False, "results JSON does not follow the schema: " + e)
    if errors or not fail.check("ep_rows" in doc, "results JSON has no \"ep_rows\""):
        return
    fail.check(doc["rows"] == [], "an ep run wrote %d collective rows" % len(doc["rows"]))
    check_provenance(doc["provenance"], [t], sweep, nranks, args, fail)
    recs = doc["ep_rows"]
    if not all(well_formed(r) for r in t.rows) or not fail.check(
            len(recs) == len(t.rows), "JSON has %d ep_rows, the table %d" % (len(recs), len(t.rows))):
        return
    for i, (rec, row) in enumerate(zip(recs, t.rows)):
        key = (rec["tokens"], rec["hidden"], rec["topk"], rec["experts"], rec["dtype"],
               rec["routing"], rec.get("impl"))  # written by every run (only old files lack it)
        where = "ep_rows[%d] %s" % (i, key)
        if not fail.check(key == row_key(row), "%s: table row %s" % (where, " ".join(row))):
            continue
        fail.check(rec["iters"] == sweep.iters, "%s: iters %r, -n %d" % (where, rec["iters"], sweep.iters))
        combine_bytes = check_bytes(rec, nranks, sweep, where, fail)
        if combine_bytes is None:
            continue
        check_phase(rec["dispatch"], row[DISPATCH:DISPATCH + 3], rec["rank_bytes_deepep"],
                    rec["rank_bytes_fabric"], nranks, where + " dispatch", fail)
        check_phase(rec["combine"], row[COMBINE:COMBINE + 3], combine_bytes[0], combine_bytes[1],
                    nranks,
                    where + " combine", fail)
        check_back_to_back(rec, row, nranks, sweep, where, fail)
    s = doc["summary"]
    wrong = sum((r["dispatch"]["wrong"] or 0) + (r["combine"]["wrong"] or 0) for r in recs)
    fail.check(s["wrong_total"] == wrong, "summary.wrong_total %r, the rows sum to %d"
               % (s["wrong_total"], wrong))
    fail.check(s["ok"] == (wrong == 0) and s["complete"] is True,
               "summary ok %r complete %r with %d wrong" % (s["ok"], s["complete"], wrong))
    fail.check(s["avg_busbw_gbps"] == 0, "summary.avg_busbw_gbps %r without collective rows"
               % s["avg_busbw_gbps"])


def check_ok_or_wrong(opts, nranks, args, rc, out, err, fail):
    want_rc = 0 if opts.expect == "ok" else 8  # wrong data (docs/failures.md)
    fail.check(rc == want_rc, "exit code %s, expected %d" % (rc, want_rc))
    sweep = EpSweep(args[1:])
    t = parse_ep_table(out, fail)
    if opts.expect == "wrong":
        fail.check(t.oob is not None and t.oob[0] > 0 and t.oob[1] == "FAILED",
                   "no '# Out of bounds values : N FAILED' footer with N > 0")
        fail.check(re.search(r"rank %d \(.*errors" % opts.rank, err),
                   "stderr does not name rank %d and its errors" % opts.rank)
    if not check_table(t, sweep, nranks, opts.expect, fail):
        return
    path = sweep.other.get("json")
    if not fail.check(path and os.path.exists(path), "no results JSON at %s" % path):
        return
    with open(path) as f:
        doc = json.load(f)
    with open(opts.schema) as f:
        schema = json.load(f)
    check_ep_json(doc, schema, t, sweep, nranks, args, fail)


def check_help(rc, out, fail):
    fail.check(rc == 0, "exit code %s, expected 0" % rc)
    fail.check(out.count("Usage:") == 1, "the help text appears %d times (rank 0 alone "
               "prints it)" % out.count("Usage:"))
    for word in HELP_FLAGS + ["dispatch", "combine", "DeepEP", "fabric", "median",
                              "randn", "uniform", "balanced", "skewed", "Exit codes"]:
        fail.check(word in out, "ep --help does not mention %s" % word)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--np", required=True,
                   help="ranks, or gpus: one per visible GPU (exit %d, skipped, without one)" % SKIP_CODE)
    p.add_argument("--expect", choices=["ok", "wrong", "usage", "help"], default="ok")
    p.add_argument("--rank", type=int, default=1, help="the faulty rank (wrong)")
    p.add_argument("--flag", action="append", default=[], help="text the usage error must name")
    p.add_argument("--bound", type=float, default=300, help="seconds the job may take")
    p.add_argument("--schema", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--nodes", type=int, default=0,
                   help="emulate this many nodes (scripts/emulate-nodes.sh) and check nHosts")
    p.add_argument("args", nargs=argparse.REMAINDER, help="-- then commsweep ep's arguments")
    opts = p.parse_args()
    args = ["ep"] + (opts.args[1:] if opts.args[:1] == ["--"] else opts.args)
    if opts.np == "gpus":
        count, why = gpu_count()
        if count == 0:
            print("SKIP: no GPU: " + why)
            return SKIP_CODE
        opts.np = count
    else:
        opts.np = int(opts.np)

    os.makedirs(opts.workdir, exist_ok=True)
    for stale in ("results.json", "stdout.txt", "stderr.txt"):
        if os.path.exists(os.path.join(opts.workdir, stale)):
            os.remove(os.path.join(opts.workdir, stale))
    if opts.expect in ("ok", "wrong") and "--json" not in args:
        args = args + ["--json", os.path.join(opts.workdir, "results.json")]

    wrapper = []
    if opts.nodes:
        os.environ["COMMSWEEP_RANKS_PER_NODE"] = str(opts.np // opts.nodes)
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        wrapper = [os.path.join(repo, "scripts", "emulate-nodes.sh")]
    cmd = launcher(opts.mpiexec, opts.np) + wrapper + [opts.commsweep] + args
    print("running: " + " ".join(cmd), flush=True)
    rc, out, err, elapsed, timed_out = run(cmd, opts.bound, opts.workdir)
    print("exit code %s after %.1f s; output in %s" % (rc, elapsed, opts.workdir))

    fail = Failures()
    fail.check(not timed_out, "the job was still running after %.0f s; ended it" % opts.bound)
    if opts.expect in ("ok", "wrong"):
        check_ok_or_wrong(opts, opts.np, args, rc, out, err, fail)
        if opts.nodes:
            fail.check(re.search(r"^# nRanks %d nHosts %d " % (opts.np, opts.nodes), out, re.M),
                       "the parameters line does not say nHosts %d" % opts.nodes)
    elif opts.expect == "usage":
        check_usage(opts, rc, out, err, fail)
    else:
        check_help(rc, out, fail)

    return verdict(fail, opts.expect, out, err)


if __name__ == "__main__":
    sys.exit(main())
