"""nccl-tests' table as commsweep prints it: parsing, layout, and the rows a sweep must have."""

import re

from expected_sweep import TESTS_BY_NAME

# The column header of nccl-tests' table, as commsweep prints it (trailing blanks ignored).
COLUMN_HEADER = [
    "#                                                              out-of-place"
    "                       in-place",
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
    "     time   algbw   busbw  #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
    "      (us)  (GB/s)  (GB/s)",
]
ROW_FIELDS = 13
DEVICE_LINE = re.compile(
    r"^#  Rank +(\d+) Group +\d+ Pid +(\d+) on +(\S+) device +(-?\d+) \[(.*?)\] (.*)$")
VERSION_LINE = re.compile(r"^# commsweep version (\S+) \((\S+)\) backend (\S+) ")
# NCCL's own log lines ("host:pid:tid [dev] NCCL WARN ..."), which NCCL writes to stdout
# whatever the table: not commsweep's output, so neither rows nor stray text.
NCCL_LOG_LINE = re.compile(r"^\S+:\d+:\d+ \[\d+\] NCCL ")


class Section:
    """One test's table: from '# Collective test starting' to '# Collective test concluded'."""

    def __init__(self, test, version):
        self.test = test
        self.version = version  # (commsweep version, git hash, backend) from the version line
        self.parameters = ""
        self.devices = []       # (rank, pid, host, device, pci, name)
        self.header = []
        self.rows = []          # the 13 fields of each row, as printed
        self.notes = []
        self.oob = None         # (count, verdict)
        self.avg_busbw = None
        self.concluded = False


def parse_table(stdout, fail):
    sections, current, previous = [], None, ""
    for line in stdout.splitlines():
        if NCCL_LOG_LINE.match(line):
            continue
        if line.startswith("# Collective test starting: "):
            v = VERSION_LINE.match(previous)
            fail.check(v is not None, "no '# commsweep version ...' line before %r" % line)
            current = Section(line.split(": ", 1)[1].strip(), v.groups() if v else None)
            sections.append(current)
        elif current is None or current.concluded:
            fail.check(line.startswith("#"), "output outside a table: %r" % line)
        elif not line.startswith("#"):
            current.rows.append(line.split())
        elif line.startswith("# nRanks "):
            current.parameters = line
        elif DEVICE_LINE.match(line):
            current.devices.append(DEVICE_LINE.match(line).groups())
        elif any(line.rstrip() == h for h in COLUMN_HEADER):
            current.header.append(line.rstrip())
        elif line.startswith("# Out of bounds values : "):
            m = re.fullmatch(r"# Out of bounds values : (\d+) (OK|FAILED)", line.rstrip())
            if fail.check(m is not None, "malformed footer %r" % line):
                current.oob = (int(m.group(1)), m.group(2))
        elif line.startswith("# Avg bus bandwidth    : "):
            try:
                current.avg_busbw = float(line.split(":", 1)[1])
            except ValueError:
                fail.check(False, "malformed footer %r" % line)
        elif line.startswith("# Collective test concluded: "):
            fail.check(line.split(": ", 1)[1].strip() == current.test,
                       "%r concludes test %s" % (line, current.test))
            current.concluded = True
        elif line.rstrip() not in ("#", "# Using devices"):
            current.notes.append(line[2:])
        previous = line
    return sections


def check_section_layout(s, nranks, fail):
    where = "table of %s" % s.test
    fail.check(s.parameters.startswith("# nRanks %d " % nranks),
               "%s: parameters line %r does not say nRanks %d" % (where, s.parameters, nranks))
    fail.check([int(d[0]) for d in s.devices] == list(range(nranks)),
               "%s: device lines for ranks %s, expected 0..%d"
               % (where, [d[0] for d in s.devices], nranks - 1))
    fail.check(s.header == COLUMN_HEADER, "%s: column header is not nccl-tests' layout:\n%s"
               % (where, "\n".join(s.header)))
    fail.check(s.oob is not None, "%s: no '# Out of bounds values' footer" % where)
    fail.check(s.avg_busbw is not None, "%s: no '# Avg bus bandwidth' footer" % where)
    fail.check(s.concluded, "%s: no '# Collective test concluded' line" % where)
    dup = sorted({n for n in s.notes if s.notes.count(n) > 1})
    fail.check(not dup, "%s: notes printed more than once (by ranks other than 0?): %s"
               % (where, dup))
    for row in s.rows:
        if fail.check(len(row) == ROW_FIELDS, "%s: row has %d fields, not %d: %s"
                      % (where, len(row), ROW_FIELDS, " ".join(row))):
            fail.check(well_formed(row), "%s: row with a malformed number: %s"
                       % (where, " ".join(row)))


def well_formed(row):
    """13 fields: size count type redop root, then time algbw busbw #wrong twice."""
    try:
        if len(row) != ROW_FIELDS:
            return False
        [int(row[i]) for i in (0, 1, 4)]
        [float(row[i]) for i in (5, 6, 7, 9, 10, 11)]
        [int(row[i]) for i in (8, 12) if row[i] != "N/A"]
        return True
    except ValueError:
        return False


def skipped_types(section):
    """Types the backend said it cannot run ('skipping bfloat16: ...'), as commsweep notes."""
    return {m.group(1) for m in (re.match(r"skipping (\S+): ", n) for n in section.notes) if m}


def check_rows_expected(sweep, sections, nranks, mode, fail):
    """One section per test per cycle, in order, each with the expected rows and #wrong."""
    expected_tests = [t.name for _ in range(sweep.cycles) for t in sweep.tests]
    fail.check([s.test for s in sections] == expected_tests,
               "tables for %s, expected %s" % ([s.test for s in sections], expected_tests))
    for s in sections:
        if s.test not in TESTS_BY_NAME:
            continue
        test = TESTS_BY_NAME[s.test]
        want = sweep.expected_rows(test, nranks, skipped_types(s))
        got = [row_key(r) for r in s.rows]
        if not fail.check(got == want, "%s: rows (size, count, type, redop, root) differ from "
                          "the expected %d rows; first difference: %s"
                          % (s.test, len(want), first_diff(got, want))):
            continue
        for r in s.rows:
            out_na, in_na = r[8] == "N/A", r[12] == "N/A"
            fail.check(out_na == (sweep.check == 0) and
                       in_na == (sweep.check == 0 or not test.in_place_checked),
                       "%s: #wrong N/A where it should not be, or a number where nccl-tests "
                       "prints N/A: %s" % (s.test, " ".join(r)))
            if mode == "ok":
                fail.check(r[8] in ("0", "N/A") and r[12] in ("0", "N/A"),
                           "%s: wrong elements: %s" % (s.test, " ".join(r)))
        if mode == "ok" and s.oob:
            fail.check(s.oob == (0, "OK"),
                       "%s: footer says %d %s, expected '0 OK'" % ((s.test,) + s.oob))


def row_key(row):
    """(size, count, type, redop, root) of a printed row; None if it is malformed."""
    try:
        return (int(row[0]), int(row[1]), row[2], row[3], int(row[4]))
    except (ValueError, IndexError):
        return None


def first_diff(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "row %d is %s, expected %s" % (i, g, w)
    if len(got) != len(want):
        return "%d rows printed, %d expected (next expected: %s)" % (
            len(got), len(want), want[len(got)] if len(want) > len(got) else None)
    return "none"

