#!/usr/bin/env python3
"""docs/architecture.md's table of layers against src/layers.txt: every layer of the table has
its row (`commsweep_<layer>`), marked "(pure)" exactly where layers.txt says pure, with the same
"may include" list; no row names a layer layers.txt does not have.

    check_architecture.py --layers src/layers.txt --page docs/architecture.md

Exit 0 when they agree; 1 with one line per difference.
"""
import argparse
import re
import sys


def read_layers(path):
    layers = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            name, pure, includes = fields[0], fields[1] == "pure", fields[2]
            layers[name] = (pure, set() if includes == "-" else set(includes.split(",")))
    return layers


def read_page(path):
    rows = {}
    row = re.compile(r"^\| `commsweep_([a-z_]+)`( \(pure\))? \|[^|]*\| ([^|]*) \|")
    with open(path) as f:
        for number, line in enumerate(f, 1):
            m = row.match(line)
            if not m or m.group(1) == "core":
                continue
            text = m.group(3).strip()
            includes = set() if text in ("-", "") else {w.strip() for w in text.split(",")}
            rows[m.group(1)] = (m.group(2) is not None, includes, number)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", required=True)
    ap.add_argument("--page", required=True)
    opts = ap.parse_args()
    layers, rows = read_layers(opts.layers), read_page(opts.page)
    problems = []
    for name, (pure, includes) in layers.items():
        if name not in rows:
            problems.append("%s: no row for layer %s (commsweep_%s) of %s" % (opts.page, name, name, opts.layers))
            continue
        page_pure, page_includes, line = rows[name]
        where = "%s:%d: commsweep_%s" % (opts.page, line, name)
        if page_pure != pure:
            problems.append("%s: %s (pure) here, %s in %s" % (where, "marked" if page_pure else "not marked",
                                                             "pure" if pure else "not pure", opts.layers))
        if page_includes != includes:
            problems.append("%s: may include %s here, %s in %s" % (
                where, ", ".join(sorted(page_includes)) or "-", ", ".join(sorted(includes)) or "-", opts.layers))
    for name, (_, _, line) in rows.items():
        if name not in layers:
            problems.append("%s:%d: commsweep_%s is no layer of %s" % (opts.page, line, name, opts.layers))
    for p in problems:
        print(p)
    if not problems:
        print("%s: %d layers, as %s" % (opts.page, len(layers), opts.layers))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
