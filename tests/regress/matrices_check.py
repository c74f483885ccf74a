#!/usr/bin/env python3
"""`commsweep baseline` and `commsweep compare` on the files of `commsweep nvlink` and `commsweep
pairs` (issue 43): a baseline of copies of a capture, the same capture judged against it (passes),
one pair doctored 12% lower (FAILs, that pair and test named alone, the regression exit code), and
a night's files judged together.

    matrices_check.py --commsweep BIN --nvlink FILE --pairs FILE --sample FILE --workdir DIR

FILE: tests/fixtures/nvlink/h100x4.json (4 x H100), tests/fixtures/pairs/cpux3-3-nodes.json (3
emulated nodes), a results sample (results/samples). The exit codes are read from `compare --help`.
"""
import argparse
import copy
import os
import shutil

from regress_cli import Check, compare_exit_codes, fresh_dir, load, run, save

NVLINK_PAIR = "nvlink vm GPU 1 (0000:00:07.0) -> GPU 2 (0000:00:08.0)"


def verdict_lines(out, verdict):
    return [line for line in out.splitlines() if line.split()[:1] == [verdict]]


def nvlink_doctored(doc, src, dst, test, factor):
    out = copy.deepcopy(doc)
    hits = 0
    for pair in out["nodes"][0]["pairs"]:
        if pair["src"] == src and pair["dst"] == dst:
            pair["gbps"][test] *= factor
            hits += 1
    assert hits == 1, f"no pair {src} -> {dst}"
    return out


def pairs_doctored(doc, a, b, factor):
    """The node pair (A, B) FACTOR times its captured rate: its GB/s, and its rails' times."""
    out = copy.deepcopy(doc)
    hits = 0
    for pair in out["pairs"]:
        if {pair["node_a"], pair["node_b"]} != {a, b}:
            continue
        pair["gbps"] *= factor
        for rail in pair["rails"]:
            rail["gbps"] *= factor
            for t in ("time_us", "time_us_a", "time_us_b"):
                rail[t] /= factor
        hits += 1
    assert hits, f"no pair {a}-{b}"
    return out


def check_kind(c, bin_, codes, capture, doctored, named, p, kind):
    """A baseline of three copies of CAPTURE; CAPTURE passes against it, DOCTORED fails, naming
    NAMED (the table's test column) alone."""
    copies = []
    for i in range(3):
        copies.append(p(f"{kind}-{i}.json"))
        shutil.copyfile(capture, copies[-1])
    rc, out, err = run([bin_, "baseline", *copies, "-o", p(f"{kind}-base.json")])
    c.expect(rc == 0, f"{kind}: a baseline of 3 copies: exit 0 ({rc}, {err.strip()!r})")
    rc, out, err = run([bin_, "compare", capture, "--baseline", p(f"{kind}-base.json")])
    c.expect(rc == codes["pass"], f"{kind}: the same capture against it: exit {codes['pass']} ({rc}, {err.strip()!r})")
    c.expect(not verdict_lines(out, "FAIL") and not verdict_lines(out, "WARN"),
             f"{kind}: no FAIL or WARN line for identical runs")
    save(doctored, p(f"{kind}-doctored.json"))
    rc, out, err = run([bin_, "compare", p(f"{kind}-doctored.json"), "--baseline", p(f"{kind}-base.json"),
                        "--json", p(f"{kind}-verdicts.json")])
    c.expect(rc == codes["regression"], f"{kind}: one pair 12% lower: exit {codes['regression']} (got {rc})")
    fails = verdict_lines(out, "FAIL")
    c.expect(len(fails) == 1 and named in fails[0] and "12.0% lower" in fails[0],
             f"{kind}: one FAIL line, naming {named!r}: {fails}")
    verdicts = load(p(f"{kind}-verdicts.json"))
    c.expect(verdicts["counts"]["FAIL"] == 1 and verdicts["exit_code"] == codes["regression"],
             f"{kind}: --json: one FAIL, exit_code {codes['regression']}")
    print(f"{kind}: " + (fails[0] if fails else "(no FAIL line)"))
    return fails


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--commsweep", "--nvlink", "--pairs", "--sample", "--workdir"):
        ap.add_argument(flag, required=True)
    a = ap.parse_args()
    w = fresh_dir(a.workdir)
    p = lambda name: os.path.join(w, name)
    c = Check("matrices_check")
    bin_ = a.commsweep
    codes = compare_exit_codes(bin_)

    fails = check_kind(c, bin_, codes, a.nvlink, nvlink_doctored(load(a.nvlink), 1, 2, "ce_write", 0.88),
                       NVLINK_PAIR, p, "nvlink")
    c.expect(bool(fails) and " ce_write " in fails[0], "nvlink: the FAIL line names the test ce_write")
    pairs = load(a.pairs)
    names = [n["name"] for n in pairs["nodes"]]
    check_kind(c, bin_, codes, a.pairs, pairs_doctored(pairs, 0, 2, 0.88), f"pairs {names[0]} <-> {names[2]}", p, "pairs")

    # A night's files together: a results sample, the nvlink and the pairs file, as the nightly
    # passes them (other settings and shapes: --allow-mixed, --shape).
    night = [a.sample, a.nvlink, a.pairs]
    rc, out, err = run([bin_, "baseline", *night, "-o", p("night-base.json"), "--allow-mixed", "--shape", "mixed"])
    c.expect(rc == 0, f"a baseline of a sample, an nvlink and a pairs file: exit 0 ({rc}, {err.strip()!r})")
    rc, out, err = run([bin_, "compare", *night, "--baseline", p("night-base.json")])
    c.expect(rc == codes["pass"], f"the same night judged together: exit {codes['pass']} ({rc}, {err.strip()!r})")
    doctored = [a.sample, p("nvlink-doctored.json"), a.pairs]
    rc, out, err = run([bin_, "compare", *doctored, "--baseline", p("night-base.json")])
    fails = verdict_lines(out, "FAIL")
    c.expect(rc == codes["regression"] and len(fails) == 1 and NVLINK_PAIR in fails[0],
             f"the night with the doctored nvlink file: exit {codes['regression']} ({rc}), its pair alone: {fails}")

    # The setup check: another copy size is refused, naming it.
    other = load(a.nvlink)
    other["settings"]["bytes"] = 64 << 20
    save(other, p("nvlink-64M.json"))
    rc, out, err = run([bin_, "compare", p("nvlink-64M.json"), "--baseline", p("nvlink-base.json")])
    c.expect(rc == codes["bad input"] and "bytes: run nvlink:64M (not in the baseline), baseline nvlink:256M" in err,
             f"another copy size: exit {codes['bad input']} naming the bytes ({rc}, {err.strip()!r})")
    c.finish()


if __name__ == "__main__":
    main()
