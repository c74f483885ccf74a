"""The docs check's magnitudes: a time (or bandwidth) shown in a page's output must be within
MAX_RATIO of what the live run prints, so that an output captured on a busy machine (an 8 B
all_reduce at 18,000 us where an idle one takes 5 us) fails, although the numbers are masked
when the lines are compared.

What counts as a time or a bandwidth, in a shown line matched to a printed one:
- a number followed by a time unit (ns, us, ms, s: "before/after 0.8 s", "9.96 us") or by GB/s;
- in a table, a column whose unit (the "(us)" row under the names, right-aligned with them) is
  a time unit or GB/s, or a column named "time": nccl-tests' time, algbw and busbw, EP's time,
  bw and pair.
Each shown value is compared with the printed value at the same place (the lines match with
numbers masked, so they hold as many numbers; a line with "..." inside is compared on the part
before the first "..." and after the last).
"""

import re

# Within 10x: a busy machine's output (1,000x off at small sizes, 10-60x at 64 KiB to 1 MiB)
# fails; an idle one's run-to-run spread (2x at a few us) passes.
MAX_RATIO = 10.0
# Below these floors a value counts as the floor. A time of a few us is scheduler noise (one
# run's 8 B all_reduce reads 3 us, the next 30 us, on 2 shared cores), and a bandwidth printed
# as 0.00 to 0.04 GB/s has no magnitude to compare. So 3 us shown passes up to 500 us printed
# (500 / 50 = 10x) and fails beyond; a planted 1000x at 5 us (5,000 us against 50) fails by 100x.
TIME_FLOOR_S = 50e-6
BANDWIDTH_FLOOR_GBPS = 0.05

TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# A number and its unit right after it ("0.8 s", "300s", "9.96 us", "0.19 GB/s"); "0.66/s" is a
# rate, not a time.
UNIT_AFTER = re.compile(r"\s?(ns|us|µs|ms|s|GB/s)(?![\w/])")
ELISION = "..."


def unit_scale(unit):
    """(kind, scale to seconds or GB/s, unit) of a unit, or None."""
    unit = unit.strip("()")
    if unit in TIME_UNITS:
        return "time", TIME_UNITS[unit], unit
    if unit == "GB/s":
        return "bandwidth", 1.0, unit
    return None


class Table:
    """A table's columns, from its names row ("# size count ... time algbw busbw") and the units
    row under it ("# (B) (elements) ... (us) (GB/s) (GB/s)"), right-aligned with each other."""

    def __init__(self, names_line):
        self.names = [(m.group(), m.end()) for m in re.finditer(r"\S+", names_line.lstrip("#"))]
        offset = len(names_line) - len(names_line.lstrip("#"))
        self.names = [(name, end + offset) for name, end in self.names]
        self.kinds = [unit_scale("us") if name == "time" else None for name, _ in self.names]
        self.expects_units = True  # the line right after the names

    def add_units(self, units_line):
        for m in re.finditer(r"\(\S+\)", units_line):
            for i, (_, end) in enumerate(self.names):
                if end == m.end() and unit_scale(m.group()):
                    self.kinds[i] = unit_scale(m.group())

    def cells(self, shown, printed):
        """[((kind, scale, unit), shown value, printed value)] of a data row, or [] when the
        row is not this table's."""
        a, b = shown.split(), printed.split()
        if len(a) != len(self.names) or len(b) != len(a) or ELISION in shown:
            return []
        return [(k, x, y) for k, x, y in zip(self.kinds, a, b) if k]


def is_names_row(line):
    words = line.lstrip("#").split()
    return line.startswith("#") and len(words) >= 3 and ("time" in words or "busbw" in words)


def inline_values(shown, printed):
    """[((kind, scale, unit), shown value, printed value)] of the numbers with a unit after
    them."""
    parts = shown.split(ELISION)
    if len(parts) == 1:
        pairs = zip_numbers(shown, printed, from_end=False)
    else:  # the part before the first "..." from the start, the part after the last from the end
        pairs = zip_numbers(parts[0], printed, from_end=False) + \
                zip_numbers(parts[-1], printed, from_end=True)
    values = []
    for (a, a_end, text), b in pairs:
        m = UNIT_AFTER.match(text, a_end)
        if m:
            values.append((unit_scale(m.group(1)), a, b))
    return values


def zip_numbers(part, printed, from_end):
    """[((number, its end, part), the printed number at the same place)]."""
    mine = [(m.group(), m.end(), part) for m in NUMBER.finditer(part)]
    theirs = [m.group() for m in NUMBER.finditer(printed)]
    if from_end:
        return list(zip(reversed(mine), reversed(theirs)))
    return list(zip(mine, theirs))


def values(lines):
    """Every compared value of one command's output, [(index into lines, (kind, scale, unit),
    shown, printed)]; lines are [(shown as on the page, shown with blanks collapsed and hex ids
    masked, the printed line it matched the same way or None where "..." stood)]."""
    found, table = [], None
    for i, (raw, shown, printed) in enumerate(lines):
        if printed is None:
            continue
        if is_names_row(raw):
            table = Table(raw)
            continue
        if table and table.expects_units:
            table.expects_units = False
            if raw.startswith("#") and "(" in raw:
                table.add_units(raw)
                continue
        cells = table.cells(shown, printed) if table and not shown.startswith("#") else []
        if not cells:
            cells = inline_values(shown, printed)
        found += [(i, unit, a, b) for unit, a, b in cells]
    return found


def apart(unit, shown, printed):
    """How many times apart a shown and a printed value are, each raised to its floor."""
    kind, scale, _ = unit
    try:
        a, b = float(shown) * scale, float(printed) * scale
    except ValueError:
        return 1.0
    floor = TIME_FLOOR_S if kind == "time" else BANDWIDTH_FLOOR_GBPS
    a, b = max(a, floor), max(b, floor)
    return max(a, b) / min(a, b)
