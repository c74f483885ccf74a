#!/usr/bin/env python3
"""Rewrites the outputs shown in README.md and docs/*.md from a real run of their commands, as
the docs check runs them: each shown line becomes the line the command printed in its place
(this machine's name as the pages' "vm"), and the page's cuts ("..." lines, "..." inside a line)
are kept where they are, a cut line getting the printed numbers of its kept parts. A command
whose output no longer matches its shown lines (a changed message, a new line) is named and left
as it is: fix that by hand, from the printed output, then run this again.

Run it on an idle machine (the docs check compares the magnitudes of times: docs/testing.md):

    python3 tests/docs/regenerate_outputs.py --repo . --commsweep build/commsweep README.md docs/quickstart.md

Only the shown lines of runnable ```console blocks change; the file is rewritten in place.
"""

import argparse
import os
import re
import shutil
import sys

import check_docs as cd


def with_numbers(shown, printed):
    """A shown line with "..." inside it, its numbers before the first "..." and after the last
    taken from the printed (normalized) line."""
    parts = shown.split(cd.ELISION)
    theirs = cd.NUMBER.findall(printed)
    head = iter(theirs)
    parts[0] = numbers_replaced(parts[0], head)
    tail_count = len(cd.NUMBER.findall(cd.masked_ids(parts[-1])))
    tail = iter(theirs[len(theirs) - tail_count:] if tail_count else [])
    parts[-1] = numbers_replaced(parts[-1], tail)
    return cd.ELISION.join(parts)


# A hex id (kept as shown: the docs check masks it) or a number (replaced).
ID_OR_NUMBER = re.compile(r"(?P<id>" + cd.COMMIT_IN_PARENS.pattern + "|" + cd.HEX_ID.pattern +
                          r")|(?P<n>" + cd.NUMBER.pattern + ")")


def numbers_replaced(text, numbers):
    return ID_OR_NUMBER.sub(lambda m: m.group() if m.group("id") else next(numbers, m.group()),
                            text)


def regenerate(page, lines, scratch, env, timeout, doc_host):
    """Runs a page's commands in order; rewrites lines (the file's, 0-based) in place. Returns
    the problems."""
    problems = []
    for cmd in page.commands:
        if cmd.mark:
            continue
        if re.match(r"^export\s", cmd.text):
            env = cd.run_export(cmd.text, env, scratch)
            continue
        code, seconds, out = cd.run_command(cmd, env, scratch, timeout)
        shown = cd.shown_lines(cmd)
        if code != cmd.expected:
            problems.append(f"{cmd.path}:{cmd.line}: exit {code}, expected {cmd.expected}: {cmd.text}")
            continue
        if not shown:
            continue
        printed = cd.printed_lines(out, scratch, doc_host)
        raw = cd.printed_lines(out, scratch, doc_host, raw=True)
        where, matched = cd.first_difference(shown, printed)
        if where is not None:
            problems.append(cd.output_failure(cmd, out, scratch, doc_host)[0])
            continue
        for (number, text), j in zip(shown, matched):
            if j is None:
                continue
            new = raw[j] if cd.ELISION not in text else with_numbers(text, printed[j])
            lines[number - 1] = new
        print(f"  regenerated ({seconds:.1f} s) {cmd.path}:{cmd.line}: {cmd.text}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--commsweep", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--doc-host", default="vm")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    readme = os.path.join(repo, "README.md")
    exports = [c for c in cd.parse(readme, "README.md").commands
               if not c.mark and re.match(r"^export\s", c.text)]
    problems = []
    for f in args.files:
        path = os.path.abspath(f)
        shown_as = os.path.relpath(path, repo)
        page = cd.parse(path, shown_as)
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        scratch = cd.make_scratch(repo, args.commsweep)
        try:
            env = cd.base_env(scratch)
            if shown_as != "README.md":
                for c in exports:
                    env = cd.run_export(c.text, env, scratch)
            problems += regenerate(page, lines, scratch, env, args.timeout, args.doc_host)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
