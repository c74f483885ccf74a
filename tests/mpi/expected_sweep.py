"""What a commsweep run must print, read from its arguments as a user reads them: the tests,
types, operators and sizes, and nccl-tests' accounting of each size (counts, rounding, busbw).
Written from nccl-tests' definitions and commsweep's documented choices (rounded duplicate
sizes dropped; alltoall and sendrecv in place not verified), not from commsweep's code, so that
it checks the code."""

import glob
import os
import re

# name, bytes, aliases: commsweep's (and nccl-tests') spelling first.
TYPES = [
    ("int8", 1, ["char", "i8"]),
    ("uint8", 1, ["u8"]),
    ("int32", 4, ["int", "i32"]),
    ("uint32", 4, ["u32"]),
    ("int64", 8, ["i64"]),
    ("uint64", 8, ["u64"]),
    ("half", 2, ["fp16", "float16", "f16"]),
    ("float", 4, ["fp32", "float32", "f32"]),
    ("double", 8, ["fp64", "float64", "f64"]),
    ("bfloat16", 2, ["bf16"]),
    ("f8e4m3", 1, ["fp8_e4m3", "e4m3", "fp8"]),
    ("f8e5m2", 1, ["fp8_e5m2", "e5m2"]),
]
TYPE_BYTES = {name: size for name, size, _ in TYPES}
OPS = ["sum", "prod", "max", "min", "avg"]


class Test:
    """One collective as nccl-tests accounts for it (PERFORMANCE.md)."""

    def __init__(self, name, blocks, reduces, rooted, in_place_checked, bus_factor):
        self.name = name
        self.blocks = blocks  # the size is n blocks of `count` elements (gather, scatter, a2a)
        self.reduces = reduces
        self.rooted = rooted
        self.in_place_checked = in_place_checked
        self.bus_factor = bus_factor


# One file per collective, tests/collectives/<name>.py, each its own oracle (nccl-tests'
# accounting of it: blocks, reduces, rooted, in place checked, busbw factor), in the order of
# `commsweep list` (each file's ORDER). Read with exec, so that no __pycache__ lands there.
COLLECTIVES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "collectives")


def load_tests(folder=COLLECTIVES_DIR):
    tests = []
    for path in sorted(glob.glob(os.path.join(folder, "*.py"))):
        oracle = {}
        with open(path) as f:
            exec(compile(f.read(), path, "exec"), oracle)
        name = os.path.splitext(os.path.basename(path))[0]
        test = Test(name, oracle["BLOCKS"], oracle["REDUCES"], oracle["ROOTED"],
                    oracle["IN_PLACE_CHECKED"], oracle["bus_factor"])
        tests.append((oracle["ORDER"], name, test))
    return [t for _, _, t in sorted(tests, key=lambda x: (x[0], x[1]))]


TESTS = load_tests()
TESTS_BY_NAME = {t.name: t for t in TESTS}

# Flags of commsweep that take a value; the checker reads the sweep it must expect from them.
VALUE_FLAGS = {
    "-b": "minbytes", "--minbytes": "minbytes", "-e": "maxbytes", "--maxbytes": "maxbytes",
    "-i": "stepbytes", "--stepbytes": "stepbytes", "-f": "stepfactor", "--stepfactor": "stepfactor",
    "-n": "iters", "--iters": "iters", "-w": "warmup_iters", "--warmup_iters": "warmup_iters",
    "-c": "check", "--check": "check", "-d": "datatype", "--datatype": "datatype",
    "-o": "op", "--op": "op", "-r": "root", "--root": "root", "-z": "blocking",
    "--blocking": "blocking", "-G": "cudagraph", "--cudagraph": "cudagraph", "-a": "average",
    "--average": "average", "-N": "run_cycles", "--run_cycles": "run_cycles", "-T": "timeout",
    "--timeout": "timeout", "--backend": "backend", "--json": "json", "--seed": "seed",
    "--fault": "fault", "--buffers": "buffers", "--per-iteration": "per_iteration",
}


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)(I?B)?", text.upper())
    if not m:
        raise ValueError("not a size: %r" % text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)]


def squash(name):
    return name.lower().replace("_", "").replace("-", "")


def find_test(name):
    for t in TESTS:
        if squash(name) in (squash(t.name), squash(t.name) + "perf"):
            return t
    raise ValueError("unknown test %r" % name)


def find_type(name):
    for canonical, _, aliases in TYPES:
        if name.lower() == canonical or name.lower() in aliases:
            return canonical
    raise ValueError("unknown type %r" % name)


def read_commsweep_args(args):
    """The flags given to commsweep, by long name, and the tests named."""
    flags, tests = {}, []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--") and "=" in a:
            name, value = a.split("=", 1)
            flags[VALUE_FLAGS[name]] = value
        elif a in VALUE_FLAGS:
            flags[VALUE_FLAGS[a]] = args[i + 1]
            i += 1
        elif a.startswith("-"):
            flags[a.lstrip("-")] = True
        else:
            tests.extend(p for p in a.split(",") if p)
        i += 1
    return flags, tests


class Sweep:
    """What commsweep was asked to run, read from its arguments as a user would."""

    def __init__(self, args):
        flags, names = read_commsweep_args(args)
        self.flags = flags
        self.tests = []
        for name in names or ["all_reduce"]:
            self.tests.extend(TESTS if name == "all" else [find_test(name)])
        self.min_bytes = parse_size(flags.get("minbytes", "8"))
        self.max_bytes = parse_size(flags.get("maxbytes", "128M"))
        self.factor = int(flags.get("stepfactor", "2"))
        self.step = parse_size(flags["stepbytes"]) if "stepbytes" in flags else None
        if self.step is not None and "stepfactor" not in flags:
            self.factor = 1
        d = flags.get("datatype", "float")
        if d == "all":
            self.types = [t[0] for t in TYPES]
        else:
            self.types = [find_type(x) for x in d.split(",") if x]
        o = flags.get("op", "sum")
        self.ops = list(OPS) if o == "all" else [x.lower() for x in o.split(",") if x]
        self.root = int(flags.get("root", "0"))
        self.check = int(flags.get("check", "1"))
        self.average = int(flags.get("average", "1"))
        self.cycles = int(flags.get("run_cycles", "1"))
        self.backend = flags.get("backend", "auto")
        self.buffers = flags.get("buffers", "cold")
        self.iters = int(flags.get("iters", "20"))

    def sizes(self):
        sizes, size = [], self.min_bytes
        while size <= self.max_bytes:
            sizes.append(size)
            nxt = size * self.factor if self.factor > 1 else size + self.step
            if nxt <= size:
                break
            size = nxt
        return sizes

    def planned(self, test, type_name, nranks):
        """(bytes, count) per row: nccl-tests rounds a size down to whole elements and, where
        the size is n blocks, to n blocks of a multiple of 16 bytes each (its
        `(count/nranks) & -(16/eltSize)`); rounded duplicates and empty sizes go."""
        elem = TYPE_BYTES[type_name]
        rows, last_bytes = [], None
        for requested in self.sizes():
            count = requested // elem
            if test.blocks:
                align = 16 // elem  # elements per 16 bytes
                count = count // nranks // align * align
                size = count * nranks * elem
            else:
                size = count * elem
            if size == last_bytes:
                continue
            last_bytes = size
            if count > 0:
                rows.append((size, count))
        return rows

    def expected_rows(self, test, nranks, skipped_types):
        rows = []
        for type_name in self.types:
            if type_name in skipped_types:
                continue
            for op in (self.ops if test.reduces else ["none"]):
                for size, count in self.planned(test, type_name, nranks):
                    rows.append((size, count, type_name, op, self.root if test.rooted else -1))
        return rows

