#!/usr/bin/env python3
"""docs/failures.md's exit-code table against the code's (issue 43): one table for every command.

    check_exit_codes.py --header src/core/exit_codes.hpp --page docs/failures.md [--script scripts/launch-common.sh]

Checked both ways: every code of the header's kExitCodes is a row of the page's table ("## Exit
codes": | code | name | ...) with the same name, and the page has no other row; the page's
"first wins: 2, 3, ..." line is the header's kExitPrecedence; with --script, the launchers'
EXIT_PRECEDENCE is the same order, each of their EXIT_* codes is in the table, and their
combined_exit (bash) gives what the order gives for every pair of codes, 0 and mpirun's 1 included.
Exit 0 when they agree, 1 naming each difference. Standard library only.
"""
import argparse
import re
import subprocess
import sys

CONSTANT = re.compile(r"constexpr int (k\w+) = (\d+);")
ROW = re.compile(r'\{exit_code::(k\w+), "([^"]+)", "')
PRECEDENCE = re.compile(r"kExitPrecedence\{(.*?)\};", re.S)
PAGE_ROW = re.compile(r"^\| (\d+) \| ([^|]+?) \|")
PAGE_ORDER = re.compile(r"first wins: ((?:\d+, )*\d+)\.")
SCRIPT_ORDER = re.compile(r'^readonly EXIT_PRECEDENCE="([\d ]+)"', re.M)
SCRIPT_CODE = re.compile(r"^readonly (EXIT_\w+)=(\d+)\b", re.M)


def read_header(path):
    text = open(path).read()
    values = {name: int(v) for name, v in CONSTANT.findall(text)}
    rows = {}
    for name, word in ROW.findall(text):
        if name not in values:
            sys.exit("%s: kExitCodes names exit_code::%s, which is not defined" % (path, name))
        rows[values[name]] = word
    order = PRECEDENCE.search(text)
    if not rows or not order:
        sys.exit("%s: no kExitCodes rows or no kExitPrecedence found" % path)
    return rows, [values[n] for n in re.findall(r"exit_code::(k\w+)", order.group(1))]


def read_page(path):
    text = open(path).read()
    start = text.find("\n## Exit codes\n")
    if start < 0:
        sys.exit("%s: no '## Exit codes' section" % path)
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    rows = {}
    for line in section.splitlines():
        m = PAGE_ROW.match(line)
        if m:
            rows[int(m.group(1))] = m.group(2).strip()
    order = PAGE_ORDER.search(section.replace("\n", " "))
    return rows, [int(c) for c in order.group(1).split(", ")] if order else None


def combined(order, a, b):
    """core/exit_codes.cpp's combined_exit: the first in ORDER; 0 yields; a code outside it too."""
    if a == 0 or b == 0:
        return a or b
    rank = {c: i for i, c in enumerate(order)}
    return b if rank.get(b, len(order)) < rank.get(a, len(order)) else a


def script_combinations(script, codes):
    """What the script's combined_exit says for every pair: {(a, b): code}."""
    words = " ".join(map(str, codes))
    loop = 'source "$1"; for a in %s; do for b in %s; do echo "$a $b $(combined_exit "$a" "$b")"; done; done' % (words, words)
    out = subprocess.run(["bash", "-c", loop, "bash", script], capture_output=True, text=True, timeout=60)
    got = {}
    for line in out.stdout.splitlines():
        a, b, c = map(int, line.split())
        got[(a, b)] = c
    return got, out.stderr.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--header", required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--script")
    a = ap.parse_args()
    code_rows, code_order = read_header(a.header)
    page_rows, page_order = read_page(a.page)
    problems = []
    for code, name in sorted(code_rows.items()):
        if code not in page_rows:
            problems.append("%s: code %d (%s) has no row in %s" % (a.header, code, name, a.page))
        elif page_rows[code] != name:
            problems.append("%s: code %d is named '%s' there, '%s' in %s" % (a.page, code, page_rows[code], name, a.header))
    for code, name in sorted(page_rows.items()):
        if code not in code_rows:
            problems.append("%s: code %d (%s) is not in %s" % (a.page, code, name, a.header))
    if page_order is None:
        problems.append("%s: no 'first wins: 2, 3, ...' line in its exit codes" % a.page)
    elif page_order != code_order:
        problems.append("%s: first wins %s, but %s has %s" % (a.page, page_order, a.header, code_order))
    if a.script:
        text = open(a.script).read()
        order = SCRIPT_ORDER.search(text)
        if not order or [int(c) for c in order.group(1).split()] != code_order:
            problems.append("%s: EXIT_PRECEDENCE %s, but %s has %s" % (
                a.script, order.group(1) if order else "missing", a.header, code_order))
        for name, value in SCRIPT_CODE.findall(text):
            if int(value) not in code_rows:
                problems.append("%s: %s=%s is no code of %s" % (a.script, name, value, a.header))
        codes = sorted(code_rows)
        got, err = script_combinations(a.script, codes)
        wrong = ["%d+%d: %s, not %d" % (x, y, got.get((x, y), "nothing"), combined(code_order, x, y))
                 for x in codes for y in codes if got.get((x, y)) != combined(code_order, x, y)]
        if wrong:
            problems.append("%s: combined_exit differs from %s's order: %s%s" % (
                a.script, a.header, "; ".join(wrong[:5]), (" (" + err + ")") if err else ""))
    for p in problems:
        print(p)
    if problems:
        return 1
    print("exit codes: %d in %s and %s alike, first wins %s" % (
        len(code_rows), a.header, a.page, ", ".join(map(str, code_order))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
