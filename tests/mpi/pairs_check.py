#!/usr/bin/env python3
"""Runs `commsweep pairs` under mpiexec on emulated nodes and checks what it did.

    pairs_check.py --commsweep BIN --mpiexec MPIEXEC --np N --per-node P --schema PAIRS_SCHEMA \
        --results-schema RESULTS_SCHEMA --workdir DIR --expect ok|slow|kept|usage|help \
        [--slow-rank R] [--hang-rank R --hang-round K] [--flag TEXT]... -- pairs ARGS

Each rank runs under scripts/emulate-nodes.sh with COMMSWEEP_RANKS_PER_NODE=P, so rank r is on
node r // P. --expect:
  ok     exit 0; the schedule (every pair of nodes once, rounds of disjoint pairs), a line per
         round, the legend, the node x node matrix (symmetric, '-' on the diagonal) equal to the
         JSON, the median and threshold recomputed from the rails, #wrong 0, no slow pair.
  slow   exit 10 (slow) and the same checks; the pairs of the node of --slow-rank R are slow on R's rail
         and no other pair is (below --slow-below x the median, or --slow-below-top-third x the
         top-third pair); with 3 nodes or more that node is named as the likely bad node (host,
         rank R, its GPU); with 2 nodes no node is named and the output says why.
  ok and slow also write --html and --prometheus (the lifecycle's, from the document's figures):
         a commsweep_pairs_bandwidth_gbps sample per pair equal to the JSON's, commsweep_pairs_slow
         1 exactly for its slow pairs, the exit code gauge the command's, the HTML a heatmap.
Every run: the line saying the median may be a bad node's, exactly, where one node's pairs hold
half the rails or more (summary.median_reliable false), and none elsewhere.
  kept   the job is ended by a timeout in round K (--fault hang:R@K, with --hang-rank R and
         --hang-round K): exit 4 within the bound; rank 0's message names the round and rank R;
         the JSON holds the rounds before K only, valid, marked incomplete (complete false,
         interrupted_by "timeout", summary.failure naming the round), null in the matrix for the
         pairs not measured; stderr says how many pairs were kept.
  usage  exit 2; one message (rank 0's) naming every --flag; no matrix.
  help   exit 0; the help once, teaching the schedule, the rails, the outlier rule, the exit codes.
Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True
from commsweep_check import REPO, Failures, launcher, run, verdict  # noqa: E402
from results_json import validate  # noqa: E402

SLOW_PAIR_EXIT = 10  # slow (docs/failures.md)
TIMEOUT_EXIT = 4


def node_ranks(np, per_node):
    nodes = []
    for r in range(np):
        if r // per_node == len(nodes):
            nodes.append([])
        nodes[r // per_node].append(r)
    return nodes


def parse_matrix(out, n, fail):
    """The rows without '#': 'N<i>' then n cells; returns {(i, j): text}."""
    cells = {}
    rows = [l.split() for l in out.splitlines() if l.strip() and not l.startswith("#")]
    fail.check(len(rows) == n, "%d matrix rows, expected %d" % (len(rows), n))
    for i, row in enumerate(rows):
        if not fail.check(row[0] == "N%d" % i and len(row) == n + 1, "matrix row %d: %s" % (i, row)):
            continue
        for j, cell in enumerate(row[1:]):
            cells[(i, j)] = cell
    return cells


def check_schedule(doc, n, fail):
    seen = set()
    for r, rnd in enumerate(doc["rounds"]):
        busy = []
        for a, b in rnd["pairs"]:
            busy += [a, b]
            fail.check((a, b) not in seen, "pair %d-%d scheduled twice" % (a, b))
            seen.add((a, b))
        fail.check(len(busy) == len(set(busy)), "round %d: a node in two pairs: %s" % (r, rnd["pairs"]))
        fail.check((rnd["sits_out"] is None) == (n % 2 == 0) and rnd["sits_out"] not in busy,
                   "round %d: sits_out %s with %d nodes" % (r, rnd["sits_out"], n))
    want = {(a, b) for a in range(n) for b in range(a + 1, n)}
    fail.check(seen == want, "pairs scheduled %s, expected every pair once: %s" % (sorted(seen), sorted(want)))
    measured = sorted((p["node_a"], p["node_b"]) for p in doc["pairs"])
    fail.check(measured == sorted(want), "pairs measured %s" % measured)
    fail.check(len(doc["rounds"]) == (n - 1 if n % 2 == 0 else n), "%d rounds for %d nodes" % (len(doc["rounds"]), n))


def check_rails(doc, nodes, settings, fail):
    rails = []
    for p in doc["pairs"]:
        a, b = nodes[p["node_a"]], nodes[p["node_b"]]
        common = min(len(a), len(b))
        fail.check(len(p["rails"]) == common, "pair %d-%d: %d rails, expected %d"
                   % (p["node_a"], p["node_b"], len(p["rails"]), common))
        for k, rail in enumerate(p["rails"]):
            fail.check((rail["local_rank"], rail["rank_a"], rail["rank_b"]) == (k, a[k], b[k]),
                       "pair %d-%d rail %d: %s" % (p["node_a"], p["node_b"], k, rail))
            fail.check(rail["wrong"] == 0, "pair %d-%d rail %d: %s wrong" % (p["node_a"], p["node_b"], k, rail["wrong"]))
            fail.check(rail["time_us"] == max(rail["time_us_a"], rail["time_us_b"]) > 0, "rail time %s" % rail)
            gbps = settings["bytes"] / rail["time_us"] / 1e3
            fail.check(abs(rail["gbps"] - gbps) <= 1e-9 * gbps, "rail gbps %s, bytes/time %s" % (rail["gbps"], gbps))
            rails.append(rail["gbps"])
        slowest = min(p["rails"], key=lambda r: r["gbps"])
        fail.check(p["gbps"] == slowest["gbps"] and p["slowest_rail"] == slowest["local_rank"],
                   "pair %d-%d: gbps/slowest_rail are not its slowest rail's" % (p["node_a"], p["node_b"]))
    s = doc["summary"]
    fail.check(s["rails"] == len(rails), "summary.rails %s, %d rails" % (s["rails"], len(rails)))
    med = statistics.median(rails)
    fail.check(abs(s["median_gbps"] - med) <= 1e-9 * med, "median %s, recomputed %s" % (s["median_gbps"], med))
    fail.check(abs(s["slow_below_gbps"] - settings["slow_fraction"] * med) <= 1e-9 * med, "slow_below_gbps")
    # The second rule: below slow_fraction_of_top_third x the top-third pair, the slowest of the
    # fastest third (the ceil(n / 3)-th fastest; ties: the pair measured first) (pairs/outliers.hpp).
    order = sorted(range(len(doc["pairs"])), key=lambda i: (-doc["pairs"][i]["gbps"], i))
    if order:
        top = doc["pairs"][order[(len(order) + 2) // 3 - 1]]
        fail.check(s["top_third_gbps"] == top["gbps"] and s["top_third_pair"] == [top["node_a"], top["node_b"]],
                   "top-third pair %s %s, expected N%d-N%d %s" % (s["top_third_pair"], s["top_third_gbps"],
                                                                top["node_a"], top["node_b"], top["gbps"]))
        below = settings["slow_fraction_of_top_third"] * top["gbps"]
        fail.check(abs(s["slow_below_top_third_gbps"] - below) <= 1e-9 * below, "slow_below_top_third_gbps")
    for p in doc["pairs"]:
        fail.check(p["slow"] == (p["gbps"] < s["slow_below_gbps"] or p["gbps"] < s["slow_below_top_third_gbps"]),
                   "pair %d-%d: slow %s at %s GB/s" % (p["node_a"], p["node_b"], p["slow"], p["gbps"]))
    # The median is a bad node's where one node's pairs hold half the rails or more.
    per_node = {}
    for p in doc["pairs"]:
        for n in (p["node_a"], p["node_b"]):
            per_node[n] = per_node.get(n, 0) + len(p["rails"])
    reliable = 2 * max(per_node.values(), default=0) < len(rails)
    fail.check(s["median_reliable"] == reliable, "median_reliable %s, expected %s" % (s["median_reliable"], reliable))
    fail.check(s["wrong_total"] == 0, "summary.wrong_total %s" % s["wrong_total"])
    return med


def caveat_line(doc):
    """The line that says the median may be a bad node's (median_reliable false), or None."""
    if doc["summary"]["median_reliable"]:
        return None
    tail = "; the top-third pair judges the spread: below %.2f x it is slow whatever the median" % (
        doc["settings"]["slow_fraction_of_top_third"])
    if len(doc["pairs"]) == 1:
        return "# one pair: a node slow on every rail cannot show against the median of its own rails" + tail
    rails, pairs = {}, {}
    for p in doc["pairs"]:
        for n in (p["node_a"], p["node_b"]):
            rails[n] = rails.get(n, 0) + len(p["rails"])
            pairs[n] = pairs.get(n, 0) + 1
    busiest = max(rails, key=lambda n: (rails[n], -n))
    return ("# few nodes: a node's pairs hold up to %d of the %d rails (%d of %d pairs), half or more, so one bad "
            "node's rails can be the median" % (rails[busiest], doc["summary"]["rails"], pairs[busiest],
                                                 len(doc["pairs"]))) + tail


def check_text(out, doc, n, nodes, fail):
    rounds = len(doc["rounds"])
    fail.check(re.search(r"sendrecv between every pair of %d nodes in %d %s" % (
        n, rounds, "round" if rounds == 1 else "rounds"), out),
               "no header line for %d nodes" % n)
    round_lines = re.findall(r"^# round (\d+) of (\d+):(.*)$", out, re.M)
    fail.check(len(round_lines) == len(doc["rounds"]), "%d round lines" % len(round_lines))
    for (i, total, text), rnd in zip(round_lines, doc["rounds"]):
        for a, b in rnd["pairs"]:
            fail.check("N%d-N%d " % (a, b) in text, "round %s line lacks N%d-N%d: %s" % (i, a, b, text))
        if rnd["sits_out"] is not None:
            fail.check("(N%d sits out)" % rnd["sits_out"] in text, "round %s: who sits out: %s" % (i, text))
    for i, ranks in enumerate(nodes):
        name = doc["nodes"][i]["name"]
        fail.check(name.endswith("/node%d" % i) and re.search(r"^#   N%d  %s  " % (i, re.escape(name)), out, re.M),
                   "legend line of N%d (%s)" % (i, name))
        fail.check(doc["nodes"][i]["ranks"] == ranks, "node %d ranks %s, expected %s" % (i, doc["nodes"][i]["ranks"], ranks))
    cells = parse_matrix(out, n, fail)
    m = doc["matrix_gbps"]
    for (i, j), cell in cells.items():
        if i == j:
            fail.check(cell == "-" and m[i][j] is None, "diagonal %d: %s" % (i, cell))
            continue
        fail.check(m[i][j] == m[j][i] and cell == "%.2f" % m[i][j], "matrix %d,%d: %s, JSON %s" % (i, j, cell, m[i][j]))
    for p in doc["pairs"]:
        fail.check(m[p["node_a"]][p["node_b"]] == p["gbps"], "matrix and pair %d-%d differ" % (p["node_a"], p["node_b"]))
    counted = lambda n, noun: "%d %s%s" % (n, noun, "" if n == 1 else "s")  # noqa: E731
    fail.check(re.search(r"^# median rail [0-9.]+ GB/s over %s of %s;" % (counted(doc["summary"]["rails"], "rail"),
                                                                         counted(len(doc["pairs"]), "pair")), out, re.M),
               "no median line (its counts in the singular for 1)")
    fail.check("# Out of bounds values : 0 OK" in out, "no '# Out of bounds values : 0 OK' line")
    sizes = {len(r) for r in nodes}
    fail.check(("different rank counts" in out) == (len(sizes) > 1), "the note on different rank counts")
    fail.check(caveat_line(doc) in (out.splitlines() + [None]), "no line %r" % caveat_line(doc))
    fail.check(len(re.findall(r"^# (few nodes|one pair): ", out, re.M)) == (caveat_line(doc) is not None),
               "a line on the median's reliability where median_reliable is %s" % doc["summary"]["median_reliable"])


def check_slow(opts, out, doc, nodes, fail):
    bad = opts.slow_rank // opts.per_node
    k = nodes[bad].index(opts.slow_rank)
    for p in doc["pairs"]:
        mine = bad in (p["node_a"], p["node_b"])
        has_rail = k < len(p["rails"])
        fail.check(p["slow"] == (mine and has_rail), "pair %d-%d slow=%s (the slow rank %d is on node %d, rail %d)"
                   % (p["node_a"], p["node_b"], p["slow"], opts.slow_rank, bad, k))
        if p["slow"]:
            fail.check(p["slowest_rail"] == k, "pair %d-%d: slowest rail %d, expected %d"
                       % (p["node_a"], p["node_b"], p["slowest_rail"], k))
            fail.check(re.search(r"^# SLOW pair N%d-N%d: .* rank %d \(" % (p["node_a"], p["node_b"], opts.slow_rank), out, re.M),
                       "no SLOW line naming rank %d for N%d-N%d" % (opts.slow_rank, p["node_a"], p["node_b"]))
    suspects = doc["summary"]["suspects"]
    if len(nodes) >= 3:
        want = {"node": bad, "name": doc["nodes"][bad]["name"], "local_rank": k, "rank": opts.slow_rank,
                "pci_bus_id": doc["provenance"]["gpus"][opts.slow_rank]["pci_bus_id"]}
        fail.check(len(suspects) == 1 and all(suspects[0][f] == v for f, v in want.items()),
                   "suspects %s, expected %s" % (suspects, want))
        fail.check(re.search(r"^# LIKELY BAD NODE N%d %s: .* local rank %d, rank %d, GPU "
                             % (bad, re.escape(want["name"]), k, opts.slow_rank), out, re.M),
                   "no LIKELY BAD NODE line for N%d, rank %d" % (bad, opts.slow_rank))
    else:
        fail.check(suspects == [], "suspects %s with 2 nodes" % suspects)
        fail.check("add a third node to tell which" in out, "the 2-node case does not say why no node is named")
    fail.check(doc["summary"]["ok"] is False, "summary.ok is not false")
    fail.check("# no slow pair" not in out, "'# no slow pair' with a slow node planted")


def read_valid_doc(opts, doc_path, fail):
    """The JSON, valid against the pairs schema and its provenance against the results schema; None otherwise."""
    if not fail.check(os.path.exists(doc_path), "no JSON at %s" % doc_path):
        return None
    with open(doc_path) as f:
        doc = json.load(f)
    errors = []
    for schema_path, part, what in ((opts.schema, doc, "commsweep.pairs/2"),
                                    (opts.results_schema, doc.get("provenance"), "provenance")):
        with open(schema_path) as f:
            schema = json.load(f)
        target = schema if part is doc else schema["$defs"]["provenance"]
        errors += ["%s: %s" % (what, e) for e in validate(part, target, schema)[:20]]
    for e in errors:
        fail.check(False, e)
    return None if errors else doc


def check_kept(opts, rc, err, doc_path, fail):
    fail.check(rc == TIMEOUT_EXIT, "exit code %s, expected %d (timeout)" % (rc, TIMEOUT_EXIT))
    label = "pairs round %d" % opts.hang_round
    lines = [l for l in err.splitlines() if l.startswith("commsweep: rank 0") and ": timeout: " in l]
    fail.check(len(lines) == 1 and label in lines[0] and "did not arrive: %d " % opts.hang_rank in lines[0],
               "rank 0's timeout line naming %s and rank %d: %s" % (label, opts.hang_rank, lines))
    doc = read_valid_doc(opts, doc_path, fail)
    if doc is None:
        return
    nodes = node_ranks(opts.np, opts.per_node)
    before = [tuple(p) for rnd in doc["rounds"][:opts.hang_round - 1] for p in rnd["pairs"]]
    measured = [(p["node_a"], p["node_b"]) for p in doc["pairs"]]
    fail.check(before and measured == before, "pairs kept %s, expected those of rounds 1-%d: %s"
               % (measured, opts.hang_round - 1, before))
    fail.check(re.search(r"^commsweep: rank 0: the %d pairs? measured before the timeout (is|are) kept in " % len(before),
                         err, re.M), "no line saying the %d pairs were kept" % len(before))
    s = doc["summary"]
    fail.check(s["complete"] is False and s["interrupted_by"] == "timeout" and s["ok"] is False,
               "summary complete/interrupted_by/ok: %s %s %s" % (s["complete"], s["interrupted_by"], s["ok"]))
    fail.check(label in s.get("failure", ""), "summary.failure does not name %s: %s" % (label, s.get("failure")))
    m = doc["matrix_gbps"]
    for a in range(len(nodes)):
        for b in range(len(nodes)):
            kept = (min(a, b), max(a, b)) in before
            fail.check((m[a][b] is not None) == kept, "matrix %d,%d: %s (measured: %s)" % (a, b, m[a][b], kept))
    check_rails(doc, nodes, doc["settings"], fail)


def check_run(opts, rc, out, doc_path, reports, fail):
    want_rc = 0 if opts.expect == "ok" else SLOW_PAIR_EXIT
    fail.check(rc == want_rc, "exit code %s, expected %d" % (rc, want_rc))
    doc = read_valid_doc(opts, doc_path, fail)
    if doc is None:
        return
    nodes = node_ranks(opts.np, opts.per_node)
    n = len(nodes)
    fail.check(len(doc["nodes"]) == n, "%d nodes in the JSON, expected %d" % (len(doc["nodes"]), n))
    check_schedule(doc, n, fail)
    check_rails(doc, nodes, doc["settings"], fail)
    check_text(out, doc, n, nodes, fail)
    check_reports(rc, out, doc, *reports, fail)
    if opts.expect == "slow":
        check_slow(opts, out, doc, nodes, fail)
    else:
        fail.check(doc["summary"]["slow_pairs"] == [] and doc["summary"]["ok"] is True,
                   "slow pairs %s in a run without a fault" % doc["summary"]["slow_pairs"])
        fail.check("# no slow pair" in out, "no '# no slow pair' line")


def prom_samples(text):
    """{(name, ((label, value), ...)): value} of a Prometheus text exposition."""
    samples = {}
    for line in text.splitlines():
        m = re.match(r'^(\w+)(?:\{(.*)\})? (\S+)$', line)
        if m and not line.startswith("#"):
            labels = tuple(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
            samples[(m.group(1), labels)] = float(m.group(3))
    return samples


def check_reports(rc, out, doc, html_path, prom_path, fail):
    """--html and --prometheus of the run, from the document's figures (each pair's nodes by name, in order)."""
    if not (fail.check(os.path.exists(prom_path), "no --prometheus file at %s" % prom_path)
            and fail.check(os.path.exists(html_path), "no --html file at %s" % html_path)):
        return
    fail.check("# Prometheus metrics written to %s" % prom_path in out and "# HTML report written to %s" % html_path in out,
               "the output does not name the --html and --prometheus files")
    with open(prom_path) as f:
        samples = prom_samples(f.read())
    names = [n["name"] for n in doc["nodes"]]
    for p in doc["pairs"]:
        a, b = sorted((names[p["node_a"]], names[p["node_b"]]))
        labels = (("node_a", a), ("node_b", b))
        got = samples.get(("commsweep_pairs_bandwidth_gbps", labels))
        fail.check(got is not None and abs(got - p["gbps"]) <= 1e-6 * max(1.0, p["gbps"]),
                   "commsweep_pairs_bandwidth_gbps %s: %s, the JSON %s" % (labels, got, p["gbps"]))
        slow = samples.get(("commsweep_pairs_slow", labels + (("metric", "bandwidth"),)))
        fail.check(slow == (1 if p["slow"] else 0), "commsweep_pairs_slow %s: %s, the JSON's slow %s" % (labels, slow, p["slow"]))
    bandwidths = [k for k in samples if k[0] == "commsweep_pairs_bandwidth_gbps"]
    fail.check(len(bandwidths) == len(doc["pairs"]), "%d bandwidth samples for %d pairs" % (len(bandwidths), len(doc["pairs"])))
    fail.check(samples.get(("commsweep_pairs_exit_code", ())) == rc and samples.get(("commsweep_pairs_complete", ())) == 1,
               "commsweep_pairs_exit_code %s (exit %s), complete %s" % (samples.get(("commsweep_pairs_exit_code", ())), rc,
                                                                     samples.get(("commsweep_pairs_complete", ()))))
    with open(html_path) as f:
        html = f.read()
    fail.check("<svg" in html and "<script" not in html, "the --html file holds no heatmap, or a script")


def check_usage(opts, rc, out, err, fail):
    fail.check(rc == 2, "exit code %s, expected 2 (usage)" % rc)
    messages = [l for l in err.splitlines() if l.startswith("commsweep:")]
    fail.check(len(messages) == 1, "expected one 'commsweep:' message, got %s" % messages)
    for flag in opts.flag:
        fail.check(any(flag in m for m in messages), "the message does not name %s: %s" % (flag, messages))
    fail.check(not any(l and not l.startswith("#") for l in out.splitlines()), "a matrix printed on a usage error")


def check_help(rc, out, fail):
    fail.check(rc == 0, "exit code %s, expected 0" % rc)
    fail.check(out.count("Usage: mpirun -np N commsweep pairs") == 1, "the usage line, once (rank 0)")
    for text in ("round-robin", "local rank k", "both directions at once", "bit-exact", "NCCL_HOSTID",
                 "slowest rail", "likely bad node", "--size", "--iters", "--warmup_iters", "--check",
                 "--slow-below", "--slow-below-top-third", "--backend", "--json", "--timeout", "Exit codes", "10 slow"):
        fail.check(text in out, "--help does not say %r" % text)
    fail.check("--fault" not in out, "--help shows the testing-only --fault")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--per-node", type=int, required=True)
    p.add_argument("--schema", required=True)
    p.add_argument("--results-schema", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--expect", choices=["ok", "slow", "kept", "usage", "help"], default="ok")
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--hang-rank", type=int, default=-1)
    p.add_argument("--hang-round", type=int, default=0)
    p.add_argument("--flag", action="append", default=[])
    p.add_argument("--bound", type=float, default=150)
    p.add_argument("args", nargs=argparse.REMAINDER)
    opts = p.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    os.makedirs(opts.workdir, exist_ok=True)
    doc_path = os.path.join(opts.workdir, "pairs.json")
    reports = tuple(os.path.join(opts.workdir, "pairs." + ext) for ext in ("html", "prom"))
    for path in (doc_path,) + reports:
        if os.path.exists(path):
            os.remove(path)
    if opts.expect in ("ok", "slow", "kept"):
        args = args + ["--json", doc_path]
    if opts.expect in ("ok", "slow"):
        args = args + ["--html", reports[0], "--prometheus", reports[1]]
    os.environ["COMMSWEEP_RANKS_PER_NODE"] = str(opts.per_node)
    cmd = launcher(opts.mpiexec, opts.np) + [os.path.join(REPO, "scripts", "emulate-nodes.sh"), opts.commsweep] + args
    print("running: COMMSWEEP_RANKS_PER_NODE=%d %s" % (opts.per_node, " ".join(cmd)), flush=True)
    rc, out, err, elapsed, timed_out = run(cmd, opts.bound, opts.workdir)
    print("exit code %s after %.1f s; output in %s" % (rc, elapsed, opts.workdir))
    print(out)
    fail = Failures()
    fail.check(not timed_out, "still running after %.0f s; ended it" % opts.bound)
    if opts.expect == "usage":
        check_usage(opts, rc, out, err, fail)
    elif opts.expect == "help":
        check_help(rc, out, fail)
    elif opts.expect == "kept":
        check_kept(opts, rc, err, doc_path, fail)
    else:
        check_run(opts, rc, out, doc_path, reports, fail)
    return verdict(fail, "pairs %s" % opts.expect, out, err)


if __name__ == "__main__":
    sys.exit(main())
