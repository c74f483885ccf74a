#!/usr/bin/env python3
"""The docs check: every command shown in README.md and docs/*.md is run, or marked as not runnable.

Convention (docs/testing.md, "The docs check"):
  ```sh             each line is a command (a trailing backslash continues it; # lines are comments)
  ```console        lines starting with "$ " are commands; the other lines are their output,
                   compared with what the command prints (see "Outputs" below)
  ```sh gpu         needs a GPU (the nccl backend): shown, not run here
  ```sh cluster     needs several nodes, a hostfile or a Kubernetes cluster: shown, not run
  ```sh long        runs here but takes minutes (a build, the test suite): shown, not run
  (the same marks after ```console)
A command's trailing comment may name its expected exit code with the words "exits N"
("# exits 6: a FAIL row"); without them, 0 is expected.
A line that looks like a command (mpirun, commsweep, build/, scripts/, kubectl, ctest, cmake, "$ ")
in any other code block, fenced (```text, ```, ```bash) or indented, is an error: every
command shown is run or marked.

How the commands run: the commands of one file in order (a later one may read what an earlier
one wrote), in a fresh copy of the repository's sources in a temporary folder (so nothing in
the checkout is written), with build/commsweep the binary under test (also first on PATH),
CUDA_VISIBLE_DEVICES empty (no GPU is visible: --backend auto picks the mpi backend), each
command under `bash -c` in its own process group, ended after --timeout seconds. A line
`export NAME=VALUE ...` sets the environment of the file's later commands; the README's exports
(the Open MPI settings for root and for more ranks than cores) apply before every docs/ page.

Outputs: the lines under a "$ " command of a runnable ```console block are compared with what
the command printed (stdout and stderr together, without Open MPI's own notices between lines
of dashes), line for line, after masking what differs
between runs and machines: every number (times, bandwidths, counts, versions, pids) reads as N,
a hex id of 7 to 40 digits (a commit, "-dirty" or not) as H, runs of blanks as one, and this machine's name as
--doc-host (the name of the machine the outputs were taken on, "vm"). A line "..." (or "...
(what was left out)") stands for any number of lines (0 or more), and "..." inside a line for
any text, so that a page may
leave out what it does not discuss; every other line must be there, in order, and nothing may
come between two of them. So a changed message, a new line or a new block fails the check, and
a command shown without output lines is not compared.

Magnitudes (doc_magnitudes.py): numbers are masked for the comparison, but each time and
bandwidth shown (a number with us, ms, s or GB/s after it; a table column whose unit row says
(us) or (GB/s), or that is named "time") must be within 10x of the value the command printed at
the same place, each raised to a floor first (50 us, 0.05 GB/s: below them a value is noise or
has no digits to compare). A command off by more is run up to twice more and each value's
fastest run counts (a busy moment only makes a run slower). So an output captured on a busy
machine fails, naming the line, the value shown and the value printed.

Links (doc_links.py): every relative link of a page names a file that exists and an anchor that
is a heading of it, as GitHub makes the anchors; a broken one fails, named FILE:LINE.

Exit status: 0 when every runnable command ended with its expected code and printed its shown
output, and every link resolves, 1 otherwise; each failure is printed as FILE:LINE: reason, then the command and the
tail of its output (or the line shown and the line printed).
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import doc_links
import doc_magnitudes

RUN_LANGS = ("sh", "console")
MARKS = {
    "gpu": "needs a GPU",
    "cluster": "needs several nodes, a hostfile or a cluster",
    "long": "takes minutes",
}
# What a command looks like, to find commands hiding in blocks the check would not run.
COMMAND_LIKE = re.compile(
    r"^\s*(\$ |mpirun\b|mpiexec\b|commsweep |build/commsweep\b|scripts/\S|kubectl |ctest\b|"
    r"cmake\b|\S+=\S+ (mpirun|mpiexec)\b)")
EXPECTED_EXIT = re.compile(r"\bexits (\d+)\b")
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`]*)$")
OUTPUT_TAIL_LINES = 15
# Top-level entries never copied into the scratch folder (build trees, VCS, the lead's shared/).
SKIP_TOP = re.compile(r"^(\.git|build.*|shared|\.cache)$")


@dataclass
class Command:
    path: str  # as given (relative to the repository when found there)
    line: int  # 1-based line of its first line
    text: str  # the command, continuations joined
    mark: str = ""  # "" runnable, else a key of MARKS
    expected: int = 0
    output: list = field(default_factory=list)  # [(line number, text)] shown under a "$ " command


@dataclass
class Page:
    path: str
    commands: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # "FILE:LINE: reason"


def trailing_comment(cmd):
    """The comment after an unquoted ' #' in a shell command line, or ''."""
    quote, i = None, 0
    while i < len(cmd):
        ch = cmd[i]
        if ch == "\\" and quote != "'":
            i += 2  # an escaped character, outside quotes or inside double quotes
            continue
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or cmd[i - 1].isspace()):
            return cmd[i + 1:]
        i += 1
    return ""


def parse_info(info):
    """(language, mark, problem) of a fence's info string."""
    words = info.split()
    lang = words[0].lower() if words else ""
    marks = words[1:]
    if lang not in RUN_LANGS:
        return lang, "", None
    if not marks:
        return lang, "", None
    if len(marks) > 1 or marks[0] not in MARKS:
        return lang, "", (f"unknown mark '{' '.join(marks)}' after ```{lang}: "
                          f"the marks are {', '.join(MARKS)}")
    return lang, marks[0], None


def add_command(page, start, text, mark):
    comment = trailing_comment(text)
    m = EXPECTED_EXIT.search(comment)
    page.commands.append(Command(page.path, start, text.strip(), mark,
                                 int(m.group(1)) if m else 0))


def scan_block(page, lang, mark, body):
    """Commands of one ```sh or ```console block; body is [(line number, text)]. In a console
    block, the lines after a command (up to the next "$ ") are its output."""
    pending, start, last = None, 0, None
    for number, raw in body:
        line = raw.rstrip()
        if pending is None:
            if lang == "console":
                if not line.startswith("$ "):
                    if last is not None:
                        last.output.append((number, line))
                    continue
                line = line[2:]
            elif not line.strip() or line.lstrip().startswith("#"):
                continue
            pending, start = "", number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        add_command(page, start, pending + line, mark)
        last = page.commands[-1] if lang == "console" else None
        pending = None
    if pending is not None:
        page.errors.append(f"{page.path}:{start}: the command's last line ends with a backslash")


def parse(path, shown_as):
    page = Page(shown_as)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence, info, body, opened = None, "", [], 0
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence, info, body, opened = m.group(2), m.group(3).strip(), [], number
                continue
            if line.startswith("    ") and COMMAND_LIKE.match(line):
                page.errors.append(
                    f"{shown_as}:{number}: a command in an indented code block: show it in a "
                    f"```sh block (marked gpu, cluster or long if the docs check cannot run it)")
            continue
        if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence) \
                and not m.group(3).strip():
            lang, mark, problem = parse_info(info)
            if problem:
                page.errors.append(f"{shown_as}:{opened}: {problem}")
            elif lang in RUN_LANGS:
                scan_block(page, lang, mark, body)
            else:
                for n, text in body:
                    if COMMAND_LIKE.match(text):
                        page.errors.append(
                            f"{shown_as}:{n}: a command in a ```{info or ''} block: show it in a "
                            f"```sh block (or as \"$ \" lines of a ```console block), marked "
                            f"gpu, cluster or long if the docs check cannot run it")
            fence = None
            continue
        body.append((number, line))
    if fence is not None:
        page.errors.append(f"{shown_as}:{opened}: code block never closed")
    return page


# A commit as `--version` and the provenance print it, "-dirty" when built from a changed tree.
HEX_ID = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?:-dirty)?\b")
# A commit id in parentheses, as the version lines print it: one of digits only (about one in
# 280 short ids) is still an id, not a number.
COMMIT_IN_PARENS = re.compile(r"\((?:[0-9a-f]{7,40})(?:-dirty)?\)")
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
ELISION = "..."
# A shown line that stands for lines left out: "...", or "... (what they are)".
ELIDED_LINES = re.compile(r"^\.\.\.(\s+\(.*\))?$")


def masked_ids(line):
    """A line with its hex ids as H."""
    return HEX_ID.sub("H", COMMIT_IN_PARENS.sub("(H)", line))


def normalized(line):
    """A line with hex ids H and blanks collapsed, its numbers kept (for their magnitudes)."""
    return " ".join(masked_ids(line).split())


def masked(line):
    """A line as the outputs are compared: hex ids H, numbers N, blanks collapsed."""
    return NUMBER.sub("N", normalized(line))


# Open MPI's own notices (show_help: "mpirun detected that one or more processes exited with
# non-zero status", ...) stand between lines of dashes; they are mpirun's, not the program's.
MPI_NOTICE_RULE = re.compile(r"^-{70,}$")


def printed_lines(out, scratch, doc_host, raw=False):
    """What a command printed, as compared: Open MPI's notices dropped, the scratch folder's
    path dropped (the pages run in the repository's root), this machine's name as the pages'
    (--doc-host), normalized (masked() then hides the numbers)."""
    host = socket.gethostname()
    lines, in_notice = [], False
    for line in out.replace(scratch + os.sep, "").replace(scratch, ".").split("\n"):
        if MPI_NOTICE_RULE.match(line):
            in_notice = not in_notice
            continue
        if in_notice:
            continue
        if host and host != doc_host:
            line = re.sub(r"(?<![\w.-])" + re.escape(host) + r"(?![\w-])", doc_host, line)
        lines.append(line.rstrip() if raw else normalized(line))
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def line_pattern(shown):
    """A shown line (masked) as a regular expression: "..." inside it matches any text."""
    return re.compile(".*".join(re.escape(part) for part in masked(shown).split(ELISION)) + r"\Z")


def shown_lines(cmd):
    """The output lines shown under a command, [(line number, text)], trailing blank ones dropped."""
    shown = list(cmd.output)
    while shown and not shown[-1][1].strip():
        shown.pop()
    return shown


def first_difference(shown, printed):
    """(None, the index of the printed line each shown one matched, None where "..." stood) when the printed
    lines (normalized) match the shown ones ([(line number, text)]), else ((index into shown or
    len(shown), index into printed), None): where the match that got furthest through the shown
    lines failed."""
    patterns = [None if ELIDED_LINES.match(text.strip()) else line_pattern(text) for _, text in shown]
    printed_masked = [NUMBER.sub("N", line) for line in printed]
    best = [(-1, 0)]
    seen = set()
    path = [None] * len(patterns)

    def match(i, j):
        if (i, j) in seen:
            return False
        seen.add((i, j))
        best[0] = max(best[0], (i, j))
        if i == len(patterns):
            return j == len(printed)
        if patterns[i] is None:  # lines left out: any number of printed lines
            path[i] = None
            return any(match(i + 1, k) for k in range(j, len(printed) + 1))
        if j < len(printed) and patterns[i].match(printed_masked[j]) is not None \
                and match(i + 1, j + 1):
            path[i] = j
            return True
        return False

    return (None, path) if match(0, 0) else (best[0], None)


def magnitudes(cmd, shown, matched):
    """{(shown line index, value index): (unit, shown value, printed value)} of the times and
    bandwidths the shown output holds (doc_magnitudes)."""
    lines = [(text, normalized(text), m) for (_, text), m in zip(shown, matched)]
    found, count = {}, {}
    for i, unit, a, b in doc_magnitudes.values(lines):
        k = count.get(i, 0)
        count[i] = k + 1
        found[(i, k)] = (unit, a, b)
    return found


def magnitude_failures(cmd, shown, found):
    """FILE:LINE lines for the values more than MAX_RATIO apart."""
    failures = []
    for (i, _), (unit, a, b) in sorted(found.items()):
        ratio = doc_magnitudes.apart(unit, a, b)
        if ratio > doc_magnitudes.MAX_RATIO:
            kind, _, label = unit
            failures.append(
                f"{cmd.path}:{shown[i][0]}: {kind} {a} {label} shown, {b} {label} printed: "
                f"{ratio:.0f}x apart (the docs check allows {doc_magnitudes.MAX_RATIO:.0f}x; "
                f"below {doc_magnitudes.TIME_FLOOR_S * 1e6:.0f} us or "
                f"{doc_magnitudes.BANDWIDTH_FLOOR_GBPS} GB/s a value counts as that): take the "
                f"output from a run on an idle machine\n    shown:   {shown[i][1].strip()}")
    return failures


def output_failure(cmd, out, scratch, doc_host):
    """FILE:LINE and the lines that differ, or None when the output is as shown; and the
    magnitudes compared ({} when none or when the lines differ)."""
    shown = shown_lines(cmd)
    if not shown:
        return None, {}
    printed = printed_lines(out, scratch, doc_host)
    where, matched = first_difference(shown, printed)
    if where is None:
        return None, magnitudes(cmd, shown, [None if j is None else printed[j] for j in matched])
    i, j = where
    if i < len(shown):
        line, expected = shown[i]
        got = masked(printed[j]) if j < len(printed) else "(nothing: the output ended)"
        reason = f"printed otherwise than shown:\n    shown:   {masked(expected)}\n    printed: {got}"
    else:
        line = shown[-1][0]
        reason = f"printed more than shown (a new line or block?):\n    printed: {masked(printed[j])}"
    return (f"{cmd.path}:{line}: {reason}\n    (numbers masked as N, hex ids as H; the command at "
            f"{cmd.path}:{cmd.line}: {cmd.text})"), {}


def make_scratch(repo, commsweep):
    """A copy of the repository's sources with build/commsweep the binary under test."""
    scratch = tempfile.mkdtemp(prefix="commsweep-docs-")
    for entry in sorted(os.listdir(repo)):
        if SKIP_TOP.match(entry):
            continue
        src, dst = os.path.join(repo, entry), os.path.join(scratch, entry)
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".git"))
        elif os.path.isfile(src):
            shutil.copy2(src, dst)
    os.makedirs(os.path.join(scratch, "build"))
    os.symlink(os.path.abspath(commsweep), os.path.join(scratch, "build", "commsweep"))
    return scratch


def run_export(cmd, env, cwd):
    """The environment after an `export ...` line."""
    out = subprocess.run(["bash", "-c", f"{cmd}\nenv -0"], env=env, cwd=cwd,
                         capture_output=True, timeout=10, check=True).stdout
    return dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)


def run_command(cmd, env, cwd, timeout):
    """(exit code or None on timeout, seconds, output)."""
    start = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", cmd.text], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: mpirun and its ranks
        out, _ = proc.communicate()
        code = None
    return code, time.monotonic() - start, out.decode(errors="replace")


def tail(text):
    lines = text.rstrip("\n").split("\n")
    return "\n".join("    | " + l for l in lines[-OUTPUT_TAIL_LINES:])


# Open MPI's settings for root and oversubscription: dropped from the inherited environment, so
# that the README's own exports (or their absence) decide, as on a fresh shell.
OPEN_MPI_PERMISSIONS = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
                        "OMPI_MCA_rmaps_base_oversubscribe")


def base_env(scratch):
    env = {k: v for k, v in os.environ.items() if k not in OPEN_MPI_PERMISSIONS}
    env["PATH"] = os.path.join(scratch, "build") + os.pathsep + env.get("PATH", "")
    env["CUDA_VISIBLE_DEVICES"] = ""  # no GPU visible: --backend auto picks mpi
    return env


def check_page(page, scratch, env, timeout, verbose, doc_host="vm"):
    """Runs a page's runnable commands; returns the failures."""
    failures = []
    for cmd in page.commands:
        if cmd.mark:
            if verbose:
                print(f"  not run ({cmd.mark}: {MARKS[cmd.mark]}) {cmd.path}:{cmd.line}: {cmd.text}")
            continue
        if re.match(r"^export\s", cmd.text):
            try:
                env = run_export(cmd.text, env, scratch)
            except subprocess.SubprocessError as e:
                failures.append(f"{cmd.path}:{cmd.line}: the export failed ({e}): {cmd.text}")
            continue
        code, seconds, out = run_command(cmd, env, scratch, timeout)
        if code is None:
            failures.append(f"{cmd.path}:{cmd.line}: still running after {timeout} s (the docs "
                            f"check's bound; keep examples small, e.g. -e 1M, or mark the block "
                            f"long): {cmd.text}\n{tail(out)}")
        elif code != cmd.expected:
            hint = " (not found here: mark the block gpu, cluster or long if it cannot run " \
                   "here)" if code == 127 else ""
            failures.append(f"{cmd.path}:{cmd.line}: exit {code}, expected {cmd.expected}"
                            f"{hint}: {cmd.text}\n{tail(out)}")
        else:
            differs, found = output_failure(cmd, out, scratch, doc_host)
            if differs is None:
                differs = magnitudes_checked(cmd, found, env, scratch, timeout, doc_host)
            if differs:
                failures.append(differs)
            elif verbose:
                print(f"  ok ({seconds:.1f} s, exit {code}) {cmd.path}:{cmd.line}: {cmd.text}")
    return failures, env


# A time off by more than 10x is run again, up to twice, and each value's smallest printed time
# counts: a busy moment only ever makes a run slower, so the smallest is the machine's own.
MAGNITUDE_RERUNS = 2


def magnitudes_checked(cmd, found, env, scratch, timeout, doc_host):
    """None when every shown time and bandwidth is within 10x of the printed one (after up to
    MAGNITUDE_RERUNS runs more where one is not), else the failures, FILE:LINE each."""
    shown = shown_lines(cmd)
    failures = magnitude_failures(cmd, shown, found)
    for _ in range(MAGNITUDE_RERUNS):
        if not failures:
            return None
        code, _, out = run_command(cmd, env, scratch, timeout)
        again = output_failure(cmd, out, scratch, doc_host)[1] if code == cmd.expected else {}
        for key, (unit, a, b) in again.items():
            if key in found:
                best = found[key][2]
                # The printed value closest to the shown one's side: the smallest time, the
                # largest bandwidth.
                faster = float(b) < float(best) if unit[0] == "time" else float(b) > float(best)
                if faster:
                    found[key] = (unit, a, b)
        failures = magnitude_failures(cmd, shown, found)
    return "\n".join(failures) if failures else None


def default_files(repo):
    files = [os.path.join(repo, "README.md")]
    docs = os.path.join(repo, "docs")
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return [f for f in files if os.path.isfile(f)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="The convention is in this file's docstring and "
                                        "docs/testing.md.")
    ap.add_argument("--repo", required=True, help="repository root (sources copied from here)")
    ap.add_argument("--commsweep", help="the built binary (build/commsweep in the commands)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per command (60)")
    ap.add_argument("--doc-host", default="vm",
                    help="the machine name the pages' outputs show; this machine's name in what a "
                         "command prints is read as it (vm)")
    ap.add_argument("--list", action="store_true", help="list the commands, run nothing")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per command")
    ap.add_argument("files", nargs="*", help="markdown files (default: README.md, docs/*.md)")
    args = ap.parse_args()

    repo = os.path.abspath(args.repo)
    files = [os.path.abspath(f) for f in args.files] or default_files(repo)
    readme = os.path.join(repo, "README.md")
    pages = [parse(f, os.path.relpath(f, repo) if f.startswith(repo + os.sep) else f)
             for f in files]
    errors = [e for p in pages for e in p.errors]
    errors += [e for f, p in zip(files, pages) for e in doc_links.link_errors(f, p.path)]

    if args.list:
        for p in pages:
            for c in p.commands:
                state = f"not run ({c.mark})" if c.mark else f"run, exit {c.expected}"
                print(f"{c.path}:{c.line}: [{state}] {c.text}")
        for e in errors:
            print(e)
        return 1 if errors else 0

    if not args.commsweep or not os.access(args.commsweep, os.X_OK):
        print(f"check_docs: --commsweep {args.commsweep!r} is not an executable: build the "
              f"commsweep target first", file=sys.stderr)
        return 2

    # The README's exports (Open MPI's settings for root and oversubscription) apply before
    # every other page, as docs/README.md tells its reader.
    readme_exports = []
    if os.path.isfile(readme):
        readme_exports = [c for c in parse(readme, "README.md").commands
                          if not c.mark and re.match(r"^export\s", c.text)]

    failures, ran, marked = list(errors), 0, 0
    started = time.monotonic()
    for page in pages:
        runnable = [c for c in page.commands if not c.mark]
        marked += len(page.commands) - len(runnable)
        ran += len([c for c in runnable if not re.match(r"^export\s", c.text)])
        if args.verbose:
            print(f"{page.path}: {len(runnable)} to run, {len(page.commands) - len(runnable)} "
                  f"marked")
        if not runnable:
            continue
        scratch = make_scratch(repo, args.commsweep)
        try:
            env = base_env(scratch)
            if page.path != "README.md":
                env = check_page(Page(page.path, readme_exports), scratch, env, args.timeout,
                                 False)[1]
            page_failures, _ = check_page(page, scratch, env, args.timeout, args.verbose,
                                          args.doc_host)
            failures += page_failures
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    for f in failures:
        print(f, file=sys.stderr)
    print(f"docs check: {len(pages)} files, {ran} commands run, {marked} marked not runnable "
          f"here (gpu, cluster, long); "
          f"{len(failures)} failures; {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
