"""The bad inputs of tests/mpi/bad_input_check.py: every flag, value, file and variable we could
think of, per input (sweep and ep flags, results and baseline files, suite files, topology XML,
hostfiles, PCIDEVICE_* and network-status, NCCL logs). Each case says what must happen: the exit
code, the texts the one message must name, the files that must not be written or changed.
"""
import json
import os
import re
import shutil
import socket

# docs/failures.md: an output that could not be written (a full device, standard output
# included), whichever command; before issue 43 it was 3 (compare: 2).
OUTPUT_NOT_WRITTEN = 11


class Case:
    """One bad input. argv: the whole command. names: texts the message must hold (or compiled
    patterns, for text that differs between machines: the memory a host has). rc: the exit code,
    or a tuple of those allowed where it depends on the machine. outputs:
    files that must be left as they were (absent, or byte for byte the same). stdout_empty:
    nothing on stdout (what an entrypoint would eval). prefix: how a message line starts.
    names_in: "message" (the stderr line) or "stdout" (a '#' note, for inputs that are
    accepted with a note, rc 0). secret: a text that must appear nowhere (a file an external
    entity names)."""

    def __init__(self, group, label, argv, names, env=None, rc=2, outputs=(), stdout_empty=False,
                 prefix="commsweep", one_message=True, names_in="message", secret=None,
                 stdout_to=None, before=None, after=None, np=None):
        self.group, self.label, self.argv, self.names = group, label, argv, list(names)
        self.env, self.rc, self.outputs = dict(env or {}), rc, list(outputs)
        self.stdout_empty, self.prefix, self.one_message = stdout_empty, prefix, one_message
        self.names_in, self.secret = names_in, secret
        # stdout_to: a path the command's stdout is opened on (a device node); before(): called
        # just before the command (starts a FIFO's reader); after(): problems found afterwards.
        self.stdout_to, self.before, self.after = stdout_to, before, after
        self.np = np  # run under mpiexec -n NP (None: one process, an MPI singleton)


# A run that is not refused must stay short: tiny sweeps, the mpi backend.
SWEEP_BASE = {"--maxbytes": "1K", "--backend": "mpi", "--iters": "1", "--warmup_iters": "0",
              "--no-preflight": None}
EP_BASE = {"--tokens": "4", "--hidden": "128", "--topk": "2", "--experts": "4",
           "--backend": "mpi", "--iters": "1", "--warmup_iters": "0"}

SECRET = "COMMSWEEP-SECRET-MARKER-7f3a"


def flag_command(opts, kind, positional, flags, results):
    """commsweep [ep] POSITIONAL --flag value ... --json RESULTS (a flag given None has no
    value; the base's flags overridden by the case's)."""
    base = dict(SWEEP_BASE if kind == "sweep" else EP_BASE)
    if kind == "ep":
        base.pop("--no-preflight", None)
    base.update(flags)
    base.setdefault("--json", results)
    args = [opts.commsweep] + (["ep"] if kind == "ep" else []) + list(positional)
    last = []
    for flag, value in base.items():
        if value is None and flag == "--maxbytes":
            last = [flag]  # the flag without its value goes last
        elif value is None:
            args.append(flag)
        else:
            args += [flag, value]
    return args + last


def flag_cases(opts, w):
    """The sweep and ep flags, and the files they name (w: the fixture folder)."""
    out = []

    def sweep(label, flags, *names, positional=(), env=None):
        results = os.path.join(opts.workdir, "sweep-%02d.json" % len(out))
        argv = flag_command(opts, "sweep", positional, flags, results)
        out.append(Case("flags", label, argv, names, env=env, outputs=[results] + (
            [flags["--json"]] if flags.get("--json") else [])))

    def ep(label, flags, *names):
        results = os.path.join(opts.workdir, "ep-%02d.json" % len(out))
        out.append(Case("ep flags", "ep: " + label, flag_command(opts, "ep", (), flags, results),
                        names, outputs=[results]))

    sweep("size: empty", {"--minbytes": ""}, "-b/--minbytes")
    sweep("size: negative", {"--minbytes": "-8"}, "-b/--minbytes", "-8")
    sweep("size: unknown suffix", {"--maxbytes": "12Q"}, "-e/--maxbytes", "12Q")
    sweep("size: suffix then junk", {"--maxbytes": "1Kx"}, "-e/--maxbytes", "1Kx")
    sweep("size: fraction", {"--maxbytes": "1.5M"}, "-e/--maxbytes", "1.5M")
    sweep("size: overflows 64 bits", {"--maxbytes": "99999999999999999999"}, "-e/--maxbytes", "too large")
    sweep("size: suffix overflows", {"--maxbytes": "17179869184T"}, "-e/--maxbytes", "too large")
    sweep("size: min > max", {"--minbytes": "1G"}, "-b/--minbytes", "-e/--maxbytes")
    sweep("step factor 0", {"--stepfactor": "0"}, "-f/--stepfactor", "out of range")
    sweep("step factor text", {"--stepfactor": "two"}, "-f/--stepfactor", "two")
    sweep("step factor 1 without -i", {"--stepfactor": "1"}, "-f/--stepfactor", "-i/--stepbytes")
    sweep("step bytes 0", {"--stepfactor": "1", "--stepbytes": "0"}, "-i/--stepbytes")
    sweep("2^40 sizes (-b 0 -e 1T -i 1)", {"--minbytes": "0", "--maxbytes": "1T", "--stepfactor": "1",
          "--stepbytes": "1"}, "-i/--stepbytes", "sizes")
    sweep("iters 0", {"--iters": "0"}, "-n/--iters", "out of range")
    sweep("iters in float notation", {"--iters": "1e3"}, "-n/--iters", "1e3")
    sweep("warm-up negative", {"--warmup_iters": "-1"}, "-w/--warmup_iters")
    sweep("check 1001", {"--check": "1001"}, "-c/--check")
    sweep("-d unknown type", {"--datatype": "float128"}, "-d/--datatype", "float128")
    sweep("-d empty list", {"--datatype": ","}, "-d/--datatype", "no type")
    sweep("-o unknown operator", {"--op": "xor"}, "-o/--op", "xor")
    sweep("-o empty", {"--op": ""}, "-o/--op")
    sweep("root negative", {"--root": "-1"}, "-r/--root")
    sweep("root outside the job", {"--root": "1"}, "-r/--root", positional=["broadcast"])
    sweep("blocking 2", {"--blocking": "2"}, "-z/--blocking")
    sweep("-G negative", {"--cudagraph": "-1"}, "-G/--cudagraph")
    sweep("-G with the mpi backend", {"--cudagraph": "2"}, "-G/--cudagraph", "mpi")
    sweep("average 4", {"--average": "4"}, "-a/--average")
    sweep("--buffers unknown", {"--buffers": "hot"}, "--buffers", "hot")
    sweep("-N negative", {"--run_cycles": "-1"}, "-N/--run_cycles")
    sweep("-T 0", {"--timeout": "0"}, "-T/--timeout")
    sweep("-T above a week", {"--timeout": "1000000"}, "-T/--timeout")
    sweep("-T text", {"--timeout": "5s"}, "-T/--timeout", "5s")
    sweep("seed negative", {"--seed": "-1"}, "--seed")
    sweep("seed above 2^63", {"--seed": "18446744073709551615"}, "--seed")
    sweep("backend unknown", {"--backend": "gpu"}, "--backend", "gpu")
    sweep("timer unknown", {"--timer": "wall"}, "--timer", "wall")
    sweep("timer device on mpi", {"--timer": "device"}, "--timer", "mpi")
    sweep("--per-iteration unknown", {"--per-iteration": "maybe"}, "--per-iteration", "maybe")
    sweep("--per-iteration without value", {"--per-iteration": ""}, "--per-iteration")
    sweep("--show-iterations with --per-iteration off", {"--per-iteration": "off", "--show-iterations": None},
          "--show-iterations", "--per-iteration off")
    sweep("--json empty", {"--json": ""}, "--json")
    sweep("--json in a missing folder", {"--json": w + "/missing/r.json"}, "--json", w + "/missing/r.json")
    sweep("--json is a folder", {"--json": w}, "--json", "is a directory")
    sweep("--json where nothing may be written", {"--json": "/proc/commsweep.json"}, "--json",
          "/proc/commsweep.json")
    sweep("--fault unknown", {"--fault": "explode:1"}, "--fault", "explode")
    sweep("--fault without rank", {"--fault": "hang"}, "--fault", "hang:1")
    sweep("--fault rank text", {"--fault": "alloc:x"}, "--fault", "'x'")
    sweep("--fault rank too large", {"--fault": "alloc:99999999999999"}, "--fault", "99999999999999")
    sweep("--fault rank with trailing text", {"--fault": "hang:1x"}, "--fault", "'1x'")
    sweep("--fault @SIZE not a size", {"--fault": "hang:1@lots"}, "--fault hang:RANK@SIZE", "lots")
    sweep("--fault @SIZE on wrong-element", {"--fault": "wrong-element:1@4K"}, "--fault", "@SIZE is for")
    sweep("--shape a path", {"--shape": "../../tmp/x"}, "--shape ../../tmp/x", "not a shape name")
    sweep("COMMSWEEP_SHAPE with a space", {}, "COMMSWEEP_SHAPE=a b", "not a shape name",
          env={"COMMSWEEP_SHAPE": "a b"})
    # The recorded-NVML seam (docs/gpu-state.md): a file that is not there, and one that is no
    # recording, each named with the variable.
    sweep("COMMSWEEP_NVML_RECORDING not there", {}, "COMMSWEEP_NVML_RECORDING=/nonexistent.json", "cannot read",
          env={"COMMSWEEP_NVML_RECORDING": "/nonexistent.json"})
    readme = os.path.join(opts.fixtures, "gpu_state", "README.md")
    sweep("COMMSWEEP_NVML_RECORDING not JSON", {}, "COMMSWEEP_NVML_RECORDING=" + readme, "not JSON",
          env={"COMMSWEEP_NVML_RECORDING": readme})
    sweep("unknown flag", {"--bogus": "1"}, "--bogus")
    sweep("flag without value", {"--maxbytes": None}, "--maxbytes")
    sweep("unknown test", {}, "all_gathr", positional=["all_gathr"])
    sweep("abbreviated flag", {"--maxb": "1K"}, "--maxb")
    ep("tokens negative", {"--tokens": "-1"}, "--tokens", "-1")
    ep("tokens text", {"--tokens": "many"}, "--tokens", "many")
    ep("tokens beyond bound", {"--tokens": "99999999999"}, "--tokens")
    ep("hidden 0", {"--hidden": "0"}, "--hidden")
    ep("hidden not a multiple of 8", {"--hidden": "100"}, "--hidden", "100")
    ep("topk 0", {"--topk": "0"}, "--topk")
    ep("topk > experts", {"--topk": "8"}, "--topk", "--experts")
    ep("experts 0", {"--experts": "0"}, "--experts")
    ep("dtype unknown", {"--dtype": "fp4"}, "--dtype", "fp4")
    ep("fp8 with hidden 200", {"--dtype": "fp8", "--hidden": "200"}, "--hidden", "--dtype")
    ep("routing unknown", {"--routing": "zipf"}, "--routing", "zipf")
    ep("skew 0", {"--routing": "skewed", "--skew": "0"}, "--skew")
    ep("skew NaN", {"--routing": "skewed", "--skew": "nan"}, "--skew", "nan")
    ep("topk-groups negative", {"--topk-groups": "-1"}, "--topk-groups")
    ep("routing file not given", {"--routing": "file"}, "--routing-file")
    ep("routing file missing", {"--routing": "file", "--routing-file": w + "/absent.txt"},
       "--routing-file", w + "/absent.txt")
    ep("routing file is a folder", {"--routing": "file", "--routing-file": w}, "--routing-file", w)
    ep("routing file empty", {"--routing": "file", "--routing-file": w + "/empty.txt"},
       "--routing-file", "empty.txt")
    ep("routing file bad expert", {"--routing": "file", "--routing-file": w + "/bad_expert.txt"},
       "--routing-file", "bad_expert.txt:3", "expert 9")
    ep("routing file text field", {"--routing": "file", "--routing-file": w + "/text_field.txt"},
       "--routing-file", "text_field.txt:1", "'two'")
    ep("routing file negative weight", {"--routing": "file", "--routing-file": w + "/neg_weight.txt"},
       "--routing-file", "neg_weight.txt:1", "weight")
    ep("routing file binary", {"--routing": "file", "--routing-file": w + "/binary.bin"},
       "--routing-file", "binary.bin")
    ep("routing file 16 MiB line", {"--routing": "file", "--routing-file": w + "/huge.txt"},
       "--routing-file", "huge.txt:1", "fields")
    ep("routing file /dev/zero", {"--routing": "file", "--routing-file": "/dev/zero"},
       "--routing-file", "/dev/zero", "larger than")
    ep("suite missing", {"--suite": w + "/absent.json"}, "--suite", "absent.json")
    ep("suite empty", {"--suite": w + "/empty.json"}, "--suite", "empty.json")
    ep("suite not JSON", {"--suite": w + "/broken.json"}, "--suite", "broken.json")
    ep("suite a list of 3 sweeps", {"--suite": w + "/array.json"}, "--suite " + w + "/array.json: 3 sweeps; "
       "`commsweep ep --suite` runs a suite of one ep sweep (run this one with `commsweep suite " + w + "/array.json`)")
    ep("suite number overflow", {"--suite": w + "/overflow.json"}, "--suite", "overflow.json", "1e400")
    ep("suite is a folder", {"--suite": w}, "--suite")
    ep("suite YAML bad impl", {"--suite": w + "/ep_entry.yaml"}, "--suite " + w + '/ep_entry.yaml:3: key "impl"', "nvl")
    ep("suite YAML unknown key", {"--suite": w + "/ep_unknown.yaml"}, "--suite " + w + '/ep_unknown.yaml:3: key "max_bytes"',
       "unknown key")
    ep("suite YAML key misspelt", {"--suite": w + "/ep_typo.yaml"},
       "--suite " + w + '/ep_typo.yaml:2: key "tokns": unknown key (did you mean "tokens"?)')
    ep("suite: the mapping of keys read before suites were one format", {"--suite": w + "/ep_old.yaml"},
       "--suite " + w + '/ep_old.yaml:1: key "tokens": a mapping of one sweep\'s keys, not a suite: a suite file '
       'is a list of sweeps; make these keys its one sweep: a first line "- kind: ep" (or the sweep\'s kind), '
       'the keys under it indented by two spaces (docs/suites.md)')
    ep("suite of a collective sweep", {"--suite": w + "/ep_collective.yaml"},
       "--suite " + w + '/ep_collective.yaml:1: key "kind": "collective" is not ep (`commsweep ep --suite` runs '
       "one sweep of kind ep; run the file with `commsweep suite " + w + "/ep_collective.yaml`)")
    ep("--json in a missing folder", {"--json": w + "/missing/ep.json"}, "--json", w + "/missing/ep.json")
    ep("unknown flag", {"--bogus": "1"}, "--bogus")
    return out


def regress_cases(opts, w, keep):
    """compare and baseline: corrupt and foreign files; the reports they would write (keep:
    files holding a sentinel) and the history stay as they were."""
    good, base = w + "/good.json", w + "/good_baseline.json"
    reports = ["--markdown", keep["md"], "--json", keep["json"], "--html", keep["html"],
               "--prometheus", keep["prom"]]
    outs = list(keep.values())
    hist = w + "/history"

    def compare(label, results, baseline, *names, extra=()):
        argv = [opts.commsweep, "compare", results, "--baseline", baseline] + reports + list(extra)
        return Case("compare", "compare: " + label, argv, names, outputs=outs + [hist])

    def baseline(label, runs, *names, extra=(), output=keep["baseline"]):
        argv = [opts.commsweep, "baseline"] + runs + ["-o", output] + list(extra)
        return Case("baseline", "baseline: " + label, argv, names, outputs=[keep["baseline"], output])

    return [
        compare("results cut short", w + "/cut.json", base, "cut.json", "not valid JSON"),
        compare("results of schema version 9", w + "/v9.json", base, "v9.json", "commsweep.results/9"),
        compare("a baseline given as results", base, base, "good_baseline.json", "commsweep.baseline/1"),
        compare("results: a negative size", w + "/negative_size.json", base, "negative_size.json",
                "rows[0]", "size_bytes"),
        compare("results: a negative time", w + "/negative_time.json", base, "negative_time.json",
                "time_us"),
        compare("results: rows a string", w + "/rows_string.json", base, "rows_string.json", "rows"),
        compare("results: 1e400", w + "/results_overflow.json", base, "results_overflow.json", "not valid JSON"),
        compare("results: /dev/zero", "/dev/zero", base, "/dev/zero", "larger than"),
        compare("results: a folder", w, base, w, "is a directory"),
        compare("results: missing", w + "/absent.json", base, "absent.json"),
        compare("baseline cut short", good, w + "/baseline_cut.json", "baseline_cut.json", "not valid JSON"),
        compare("baseline of schema version 2", good, w + "/baseline_v2.json", "baseline_v2.json",
                "commsweep.baseline/2"),
        compare("results given as the baseline", good, good, "good.json", "commsweep.results/2"),
        compare("baseline: a negative size", good, w + "/baseline_negative.json",
                "baseline_negative.json", "entries[0].size_bytes"),
        compare("baseline: fail_pct a string", good, w + "/baseline_rule.json", "baseline_rule.json",
                "rules.fail_pct"),
        compare("baseline: missing", good, w + "/absent_baseline.json", "absent_baseline.json"),
        compare("--record: this run already recorded", good, base, "--record", "already recorded",
                extra=["--history", hist, "--record"]),
        compare("--record without --history", good, base, "--record", "--history", extra=["--record"]),
        baseline("a run cut short", [good, w + "/cut.json"], "cut.json", "not valid JSON"),
        baseline("a run of schema version 9", [w + "/v9.json"], "v9.json", "commsweep.results/9"),
        baseline("a run with a negative size", [w + "/negative_size.json"], "negative_size.json", "size_bytes"),
        baseline("-o in a missing folder", [good], w + "/missing/b.json", output=w + "/missing/b.json"),
        baseline("--floor not a number", [good], "--floor", "abc", extra=["--floor", "all_reduce:1G:abc"]),
        baseline("--fail-pct below --warn-pct", [good], "--fail-pct", extra=["--fail-pct", "1"]),
        baseline("an interrupted run (complete: false)", [good, w + "/interrupted.json"], "interrupted.json",
                 "incomplete run", "SIGTERM", "--allow-incomplete"),
        baseline("runs of other settings", [good, w + "/other_settings.json"], "other_settings.json",
                 "other settings", "--allow-mixed"),
        baseline("an empty results file", [w + "/empty.json"], "empty.json", "empty, no JSON in it"),
        baseline("-o is a folder", [good], "-o/--output", "is a directory", output=w + "/history"),
        compare("an empty results file", w + "/empty.json", base, "empty.json", "empty, no JSON in it"),
        compare("a results file of blanks", w + "/blank.json", base, "blank.json", "only blank space"),
        Case("compare", "compare: --html a folder", [opts.commsweep, "compare", good, "--baseline", base, "--html", w],
             ["--html", "is a directory"], outputs=outs + [hist]),
        Case("compare", "compare: no --baseline", [opts.commsweep, "compare", good], ["--baseline",
             "commsweep baseline RUN.json"], outputs=outs + [hist]),
    ] + setup_cases(opts, w, compare)


def setup_cases(opts, w, compare):
    """A run judged against a baseline that measured something else: refused before the verdicts
    (exit 2), one line per differing property naming both values (checked exactly)."""
    shipped = os.path.join(os.path.dirname(opts.scripts), "results", "baselines", "h200x4-nvlink.json")

    def lines(*want):
        def after(out, err):
            got = [l for l in err.splitlines() if l.startswith("  ")]
            return [] if got == list(want) else ["property lines %s, expected %s" % (got, list(want))]
        return after

    shipped_case = compare("a 1-rank mpi run against the shipped 4 x H200 NVLink baseline", w + "/good.json", shipped,
                           "good.json did not measure what the baseline " + shipped +
                           " did (give --allow-mismatch to judge it anyway):")
    shipped_case.after = lines("  backend: run mpi, baseline nccl", "  ranks: run 1, baseline 4",
                               "  GPUs per node: run 0, baseline 4", "  shape: run cpux1, baseline h200x4")
    mode = compare("--mode other than the baseline's", w + "/good.json", w + "/good_baseline_nvlink.json",
                   "good.json did not measure what the baseline", extra=["--mode", "roce-sriov"])
    mode.after = lines("  mode: run roce-sriov, baseline nvlink")
    buffers = compare("a run of warm buffers against a baseline of cold ones", w + "/warm.json", w + "/good_baseline.json",
                      "warm.json did not measure what the baseline")
    buffers.after = lines("  buffers: run warm, baseline cold")
    return [shipped_case, mode, buffers]


def is_root():
    return os.geteuid() == 0


def node_kind(path):
    """'fifo', 'char', 'link', 'file', 'dir' or None: what is at path now (not following links)."""
    import stat
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    for kind, test in (("link", stat.S_ISLNK), ("fifo", stat.S_ISFIFO), ("char", stat.S_ISCHR),
                       ("dir", stat.S_ISDIR), ("file", stat.S_ISREG)):
        if test(mode):
            return kind
    return "other"


def make_output_nodes(w):
    """The outputs a user may name that are not plain files, made here (never under /dev): a
    FIFO, a character device with /dev/null's numbers and one with /dev/full's (root only),
    symbolic links to a file, to a folder and to the FIFO."""
    os.mkfifo(os.path.join(w, "results.fifo"))
    if is_root():
        os.mknod(os.path.join(w, "null.dev"), 0o666 | 0o020000, os.makedev(1, 3))
        os.mknod(os.path.join(w, "full.dev"), 0o666 | 0o020000, os.makedev(1, 7))
    with open(os.path.join(w, "link_target.json"), "w") as f:
        f.write("old\n")
    os.symlink("link_target.json", os.path.join(w, "results_link.json"))
    os.symlink("history", os.path.join(w, "folder_link"))
    os.symlink("results.fifo", os.path.join(w, "fifo_link"))


def fifo_reader(path, got):
    """before(): a thread that reads the FIFO to its end into got[0] (as `cat p &` would)."""
    import threading

    def read():
        with open(path, "rb") as f:
            got.append(f.read())

    def start():
        t = threading.Thread(target=read, daemon=True)
        t.start()
    return start


def newcomer_cases(opts, w):
    """A newcomer's mistakes (issue 20): outputs that are not plain files, standard output that
    cannot be written, -b 0, typos and help for unknown words, usage errors that the preflight
    and the table header must not precede."""
    out = []
    quick = ["-e", "1K", "--backend", "mpi", "-n", "1", "-w", "0", "--no-preflight"]

    def stays(path, kind):
        return lambda out_, err_: ([] if node_kind(path) == kind else
                                   ["%s is now %s, not a %s" % (path, node_kind(path), kind)])

    def json_in(got, path):
        def check(out_, err_):
            problems = stays(path, "fifo")(out_, err_)
            if not got or not got[0].startswith(b"{"):
                problems.append("the FIFO's reader got %r" % (got[0][:40] if got else None))
            return problems
        return check

    got = []
    fifo = w + "/results.fifo"
    out.append(Case("outputs", "--json a FIFO with a reader: written through", [opts.commsweep] + quick + ["--json", fifo],
                    ["# Results written to " + fifo], rc=0, names_in="stdout", before=fifo_reader(fifo, got),
                    after=json_in(got, fifo)))
    got_link = []
    out.append(Case("outputs", "--json a symlink to a FIFO: written through", [opts.commsweep] + quick +
                    ["--json", w + "/fifo_link"], ["# Results written to"], rc=0, names_in="stdout",
                    before=fifo_reader(fifo, got_link), after=json_in(got_link, fifo)))

    def target_replaced(out_, err_):
        problems = stays(w + "/results_link.json", "link")(out_, err_)
        with open(w + "/link_target.json") as f:
            if not f.read().startswith("{"):
                problems.append("the link's target does not hold the results")
        return problems
    out.append(Case("outputs", "--json a symlink: its target written, the link kept",
                    [opts.commsweep] + quick + ["--json", w + "/results_link.json"], ["# Results written to"],
                    rc=0, names_in="stdout", after=target_replaced))
    out.append(Case("outputs", "--json a symlink to a folder", [opts.commsweep] + quick + ["--json", w + "/folder_link"],
                    ["--json", "folder_link", "is a directory"], stdout_empty=True))
    if is_root():
        null, full = w + "/null.dev", w + "/full.dev"
        out.append(Case("outputs", "--json a device like /dev/null: written through, kept",
                        [opts.commsweep] + quick + ["--json", null], ["# Results written to " + null], rc=0,
                        names_in="stdout", after=stays(null, "char")))
        out.append(Case("outputs", "--json a device like /dev/full: refused before measuring",
                        [opts.commsweep] + quick + ["--json", full],
                        ["--json %s: cannot write the results there: No space left on device" % full],
                        stdout_empty=True, after=stays(full, "char")))
        for label, argv, rc in [("a sweep's table", [opts.commsweep] + quick, OUTPUT_NOT_WRITTEN),
                                ("list", [opts.commsweep, "list"], OUTPUT_NOT_WRITTEN),
                                ("--help", [opts.commsweep, "--help"], OUTPUT_NOT_WRITTEN),
                                ("compare --help", [opts.commsweep, "compare", "--help"], OUTPUT_NOT_WRITTEN)]:
            out.append(Case("stdout", "%s > a device like /dev/full" % label, argv,
                            ["write error on standard output", "No space left on device"], rc=rc, stdout_to=full))
    results = os.path.join(opts.workdir, "newcomer.json")
    out.append(Case("flags", "-b 0 with the default factor", [opts.commsweep, "-b", "0"] + quick + ["--json", results],
                    ["-b/--minbytes 0", "sweeps only 0 bytes"], outputs=[results], stdout_empty=True))
    out.append(Case("flags", "-G 2 where --backend auto chooses mpi (before any preflight)",
                    [opts.commsweep, "-G", "2", "-e", "1K", "--json", results], ["-G/--cudagraph", "chooses mpi"],
                    outputs=[results], stdout_empty=True))
    out.append(Case("flags", "-r 9 in a job of 1 rank (before any preflight)",
                    [opts.commsweep, "broadcast", "-r", "9", "-e", "1K", "--backend", "mpi", "--json", results],
                    ["-r/--root 9", "not a rank of this job"], outputs=[results], stdout_empty=True))
    out.append(Case("commands", "a typo'd command", [opts.commsweep, "prefligt"],
                    ["unknown command or test 'prefligt'", "did you mean 'preflight'?"], stdout_empty=True))
    out.append(Case("commands", "a typo'd test", [opts.commsweep, "al_reduce"] + quick,
                    ["unknown command or test 'al_reduce'", "did you mean 'all_reduce'?"], stdout_empty=True))
    out.append(Case("commands", "an unknown command with --help", [opts.commsweep, "foo", "--help"],
                    ["unknown command or test 'foo'", "the commands are:"], stdout_empty=True))
    out.append(Case("commands", "a typo'd command with --help", [opts.commsweep, "comapre", "--help"],
                    ["did you mean 'compare'?"], stdout_empty=True))
    return out


def surprise_cases(opts, w, keep):
    """Inputs that surprised a new user (issue 28), each with its exact message: decimal size
    units, spaces in lists, misspelt keys, the two suite formats, compare's arguments swapped and
    --quiet, `commsweep help`, `topo generate --check` away from topology/, --require-transport
    on the mpi backend chosen by auto; and the accepted forms beside them (rc 0, checked on stdout)."""
    quick = ["--backend", "mpi", "-n", "1", "-w", "0", "--no-preflight"]
    results = os.path.join(opts.workdir, "surprise.json")
    out = []

    def refused(group, label, argv, message, **kw):
        kw.setdefault("outputs", [results])
        out.append(Case(group, label, argv, [message], **kw))

    def accepted(group, label, argv, *names, after=None):
        out.append(Case(group, label, argv, names, rc=0, names_in="stdout", after=after))

    decimal = ("'%s': %s is 10^%d bytes (as in GB/s), while sizes here are powers of 1024: did you mean '%s' "
               "(%d bytes), or %d for 10^%d bytes?")
    refused("sizes", "-e 1GB: GB is 10^9 in the tables", [opts.commsweep, "-e", "1GB", "--json", results] + quick,
            "-e/--maxbytes: " + decimal % ("1GB", "GB", 9, "1G", 1 << 30, 10**9, 9), stdout_empty=True)
    refused("sizes", "-b 100KB", [opts.commsweep, "-b", "100KB", "-e", "1M", "--json", results] + quick,
            "-b/--minbytes: " + decimal % ("100KB", "KB", 3, "100K", 100 << 10, 100000, 3), stdout_empty=True)
    refused("sizes", "-e 1kb (lower case)", [opts.commsweep, "-e", "1kb", "--json", results] + quick,
            "-e/--maxbytes: " + decimal % ("1kb", "KB", 3, "1K", 1024, 1000, 3), stdout_empty=True)
    refused("sizes", "pairs -s 1gb", [opts.commsweep, "pairs", "-s", "1gb", "--json", results, "--backend", "mpi"],
            "pairs: -s/--size: " + decimal % ("1gb", "GB", 9, "1G", 1 << 30, 10**9, 9), stdout_empty=True)
    refused("sizes", "suite: max_bytes: 1GB", [opts.commsweep, "suite", w + "/decimal_size.yaml", "--json", results,
                                              "--backend", "mpi"],
            w + '/decimal_size.yaml:5: sweep 1 "x": key "max_bytes": ' +
            decimal % ("1GB", "GB", 9, "1G", 1 << 30, 10**9, 9), stdout_empty=True)
    accepted("sizes", "-b 1Ki -e 1KiB: the IEC spellings, powers of 1024",
             [opts.commsweep, "all_reduce", "-b", "1Ki", "-e", "1KiB"] + quick, "# nRanks 1 nHosts 1 minBytes 1024 maxBytes 1024")
    accepted("lists", "-d 'float, bf16': items trimmed", [opts.commsweep, "all_reduce", "-d", "float, bf16", "-e", "8"] +
             quick, "bfloat16")
    accepted("lists", "suite: dtypes: float, bf16 (a YAML plain scalar)",
             [opts.commsweep, "suite", w + "/spaced_list.yaml", "--backend", "mpi", "--no-preflight"], "bfloat16")
    refused("keys", "suite: a misspelt top-level key", [opts.commsweep, "suite", w + "/sweps.yaml", "--backend", "mpi"],
            w + '/sweps.yaml:1: unknown key "sweps" (did you mean "sweeps"?) (a suite\'s keys: sweeps description)',
            stdout_empty=True, outputs=())
    refused("keys", "suite: a mapping of one sweep's keys (ep --suite's old format)",
            [opts.commsweep, "suite", w + "/ep_old.yaml", "--backend", "mpi"],
            w + '/ep_old.yaml:1: key "tokens": a mapping of one sweep\'s keys, not a suite: a suite file is a list of '
            'sweeps; make these keys its one sweep: a first line "- kind: ep" (or the sweep\'s kind), the keys under '
            'it indented by two spaces (docs/suites.md)', stdout_empty=True, outputs=())
    good, base = w + "/good.json", w + "/good_baseline.json"
    refused("compare", "compare: the arguments swapped", [opts.commsweep, "compare", base, "--baseline", good],
            'results schema "commsweep.baseline/1" is not the one this commsweep reads ("commsweep.results/2") (%s is '
            "a baseline and --baseline %s is a results file: swap them, `commsweep compare RESULTS.json... "
            "--baseline BASELINE.json`)" % (base, good), outputs=[keep["md"]])

    def two_lines(out_, err_):
        lines = out_.splitlines()
        ok = len(lines) == 2 and lines[0].startswith("verdicts (each half or phase): ") and lines[1] == "exit 0: pass"
        return [] if ok else ["--quiet printed %r, expected the two verdict lines" % lines]
    accepted("compare", "compare --quiet: the verdict alone", [opts.commsweep, "compare", good, "--baseline", base,
                                                               "--quiet"], "exit 0: pass", after=two_lines)
    accepted("commands", "commsweep help", [opts.commsweep, "help"], "Other commands (each has --help):")
    accepted("commands", "commsweep help compare", [opts.commsweep, "help", "compare"], "commsweep compare")
    accepted("commands", "commsweep help all_reduce", [opts.commsweep, "help", "all_reduce"], "Sizes take K, M, G, T")
    refused("commands", "commsweep help comapre", [opts.commsweep, "help", "comapre"],
            "commsweep help: unknown command or test 'comapre' (did you mean 'compare'?)", stdout_empty=True,
            outputs=())
    refused("commands", "commsweep help with two words", [opts.commsweep, "help", "compare", "baseline"],
            "commsweep help: help takes one command or test, not 'baseline' (commsweep help CMD)", stdout_empty=True,
            outputs=())
    absent = w + "/no-topology-here"
    refused("topo", "topo generate --check where there is no topology/ folder",
            [opts.commsweep, "topo", "generate", "--check", "--out", absent],
            "--check: %s (%s) is not a folder, so there is nothing to compare with: run it in the repository's "
            "root, or name the generated files' folder with --out DIR" % (absent, absent), stdout_empty=True,
            outputs=[absent])

    def no_spliced_line(out_, err_):
        spliced = [l for l in err_.splitlines() if l.startswith("#")]
        return ["a preamble line in the message: %r" % spliced[0]] if spliced else []
    refused("flags", "--require-transport where --backend auto chooses mpi",
            [opts.commsweep, "-e", "1K", "--require-transport", "ib", "--no-preflight", "--json", results],
            "--require-transport: the mpi backend makes no NCCL connections to verify (backend mpi: ",
            after=no_spliced_line)
    return out


def run_settings_cases(opts, w):
    """The run's settings (src/run/run_settings.cpp) refused alike by every measuring command, with
    the same message, before the command's own checks: `commsweep pairs --json ""` on one rank
    (one node) says "--json: give a file name", not "fewer than 2 nodes"."""
    commands = {"sweep": [opts.commsweep, "-e", "1K"], "ep": [opts.commsweep, "ep", "--experts", "4"],
                "pairs": [opts.commsweep, "pairs"], "nvlink": [opts.commsweep, "nvlink"],
                "suite": [opts.commsweep, "suite", opts.suites + "/ci.yaml"]}
    refused = [("--json empty", ["--json", ""], ["--json: give a file name"]),
               ("--backend unknown", ["--backend", "gpu"], ["--backend: unknown backend 'gpu' (nccl, mpi or auto)"]),
               ("--bind unknown", ["--bind", "numa"], ["--bind: 'numa' is not auto or none"]),
               ("-T 0", ["-T", "0"], ["-T/--timeout: 0 is out of range (1 to 604800)"]),
               ("--require-gdr with mpi", ["--backend", "mpi", "--require-gdr"],
                ["--require-gdr: the mpi backend makes no NCCL connections to verify (--backend mpi)"])]
    return [Case("run settings", "%s: %s" % (name, label), argv + flags, names, stdout_empty=True)
            for name, argv in commands.items() for label, flags, names in refused]


def nvlink_cases(opts, w):
    """commsweep nvlink (on one rank): where it cannot run (no GPU here: the CI machine, a build
    without CUDA; --backend mpi) one line says why and what to do; its own flags; --judge's file."""
    nvlink = [opts.commsweep, "nvlink"]
    with open(w + "/not_nvlink.json", "w") as f:
        json.dump({"schema": "commsweep.results/2"}, f)
    return [
        Case("nvlink", "no GPU on this machine", nvlink,
             ["nvlink: rank 0 (host ", "run it under mpirun with one rank per GPU on GPU nodes"]),
        Case("nvlink", "--backend mpi", nvlink + ["--backend", "mpi"],
             ["nvlink: --backend mpi moves host buffers, and nvlink copies between GPUs"]),
        Case("nvlink", "-s not a multiple of 16", nvlink + ["-s", "100"],
             ["-s/--size: 100 B is not a positive multiple of 16 B"], stdout_empty=True),
        Case("nvlink", "--fault one rank", nvlink + ["--fault", "slow-pair:1"],
             ["--fault: 'slow-pair:1' is not slow-pair:RANK,RANK"], stdout_empty=True),
        Case("nvlink", "--judge a missing file", nvlink + ["--judge", w + "/absent.json"],
             ["--judge", "absent.json"], stdout_empty=True),
        Case("nvlink", "--judge another schema's file", nvlink + ["--judge", w + "/not_nvlink.json"],
             ["not_nvlink.json", "not a commsweep.nvlink/1 document"], stdout_empty=True),
    ]


def suite_cases(opts, w, keep):
    """commsweep suite FILE (on one rank): each refused naming the file (and line); the results
    file named by --json (a sentinel) untouched."""
    def suite(label, path, *names, results=keep["suite"]):
        argv = [opts.commsweep, "suite", path, "--backend", "mpi", "--json", results]
        return Case("suite", "suite: " + label, argv, names, outputs=[keep["suite"], results])

    return [
        suite("YAML anchor and alias (billion laughs)", w + "/alias.yaml", "alias.yaml:2", "anchors"),
        suite("nested 10,000 deep", w + "/deep.yaml", "deep.yaml:1", "nested deeper"),
        suite("larger than 1 MiB", w + "/big.yaml", "big.yaml", "larger than 1 MiB"),
        suite("/dev/zero", "/dev/zero", "/dev/zero", "larger than"),
        suite("a folder", w, w, "is a directory"),
        suite("missing", w + "/absent.yaml", "absent.yaml"),
        suite("empty", w + "/empty.yaml", "empty.yaml:1", "empty"),
        suite("not UTF-8", w + "/latin1.yaml", "latin1.yaml:2", "UTF-8"),
        suite("JSON cut short", w + "/cut_suite.json", "cut_suite.json:1", "not valid JSON"),
        suite("unknown key", w + "/unknown_key.yaml",
              'unknown_key.yaml:5: sweep 1 "x": key "max_byte": unknown key (did you mean "max_bytes"?) (the keys '
              "of this kind: name kind "),
        suite("max_bytes beyond 64 bits", w + "/big_max.yaml", "big_max.yaml:5", "max_bytes", "too large"),
        suite("a tab in the indentation", w + "/tab.yaml", "tab.yaml:3", "tab"),
        suite("ep impl unknown", w + "/ep_impl.yaml", 'ep_impl.yaml:4: sweep 1 "moe": key "impl"', "nvl"),
        suite("ep lsa_blocks negative", w + "/ep_blocks.yaml", 'ep_blocks.yaml:4: sweep 1 "moe": key "lsa_blocks"',
              "out of range"),
        suite("collective buffers unknown", w + "/buffers.yaml", 'buffers.yaml:4: sweep 1 "c": key "buffers"', "hot"),
        suite("--json in a missing folder", opts.suites + "/ci.yaml", "--json", w + "/missing/s.json",
              results=w + "/missing/s.json"),
    ]


def topology_cases(opts, w, listener_url):
    """commsweep topo validate FILE --no-node: a DOCTYPE (internal entities, external entities,
    an external DTD) is refused before anything is expanded or fetched; the file an external
    entity names is never read, the address it names never contacted."""
    def topo(label, path, *names, secret=None):
        argv = [opts.commsweep, "topo", "validate", path, "--no-node"]
        return Case("topology", "topo validate: " + label, argv, names, prefix=r"\S", one_message=False,
                    secret=secret)

    return [
        topo("entity expansion (billion laughs)", w + "/laughs.xml", "laughs.xml:2", "DOCTYPE refused"),
        topo("external entity (file)", w + "/xxe_file.xml", "xxe_file.xml:2", "DOCTYPE refused", secret=SECRET),
        topo("external entity (http, " + listener_url + ")", w + "/xxe_http.xml", "xxe_http.xml:2",
             "DOCTYPE refused"),
        topo("external DTD", w + "/dtd.xml", "dtd.xml:2", "DOCTYPE refused"),
        topo("an entity never declared", w + "/undeclared.xml", "undeclared.xml:1", "&xxe;"),
        topo("nested 100,000 deep", w + "/deep.xml", "deep.xml:1", "nested deeper"),
        topo("larger than 8 MiB", w + "/big.xml", "big.xml:1", "larger than"),
        topo("cut short", w + "/cut.xml", "cut.xml:1"),
        topo("NUL bytes", w + "/binary.bin", "binary.bin:1", "NUL"),
        topo("/dev/zero", "/dev/zero", "/dev/zero", "larger than"),
        topo("a folder", w, w, "is a directory"),
        topo("missing", w + "/absent.xml", "absent.xml"),
    ]


def hostfile_cases(opts, w):
    """The bare-metal launcher and the master pod's entrypoint read a hostfile before anything
    else: each bad one refused naming the file (and line); nothing stored under results."""
    results = opts.workdir + "/hostfile-results"
    env = {"COMMSWEEP_BIN": opts.commsweep, "COMMSWEEP_RESULTS_DIR": results,
           "COMMSWEEP_WAIT_WORKERS_S": "5"}
    prefix = r"(run-baremetal|commsweep-master): error: "
    out = []
    for path, label, names in [
            (w + "/hf_shell", "a shell command as a host", ["hf_shell line 2", "'node2;touch"]),
            (w + "/hf_subst", "a command substitution", ["hf_subst line 2", "$(touch"]),
            (w + "/hf_dup", "a host twice", ["hf_dup line 2", "listed twice"]),
            (w + "/hf_slots", "slots=four", ["hf_slots line 1", "slots=four"]),
            (w + "/hf_empty", "only comments", ["hf_empty", "no host"]),
            (w + "/hf_nul", "NUL bytes", ["hf_nul", "NUL"]),
            (w + "/hf_big", "1.8 MB", ["hf_big", "bytes"]),
            ("/dev/zero", "/dev/zero", ["/dev/zero", "not a readable file"]),
            (w, "a folder", [w, "not a readable file"]),
            (w + "/absent.host", "missing", ["absent.host", "does not exist"])]:
        out.append(Case("hostfile", "run-baremetal.sh: " + label,
                        [opts.scripts + "/run-baremetal.sh", path, "all_reduce"], names,
                        env=env, outputs=[results], prefix=prefix))
    # Issue 28: the bare-metal launcher reads slots= as the master does (they were ignored).
    out.append(Case("hostfile", "run-baremetal.sh: slots= against COMMSWEEP_GPUS_PER_NODE",
                    [opts.scripts + "/run-baremetal.sh", w + "/hf_slots8", "all_reduce"],
                    ["COMMSWEEP_GPUS_PER_NODE=2, but %s/hf_slots8 gives each worker slots=8 (an MPIJob's "
                     "slotsPerWorker, or Open MPI's slots): make them equal" % w],
                    env=dict(env, COMMSWEEP_GPUS_PER_NODE="2"), outputs=[results], prefix=prefix))
    master = dict(env, COMMSWEEP_HOSTFILE=w + "/hf_shell")
    out.append(Case("hostfile", "entrypoint-master.sh: a shell command as a host",
                    [opts.scripts + "/entrypoint-master.sh", "all_reduce"], ["hf_shell line 2"],
                    env=master, outputs=[results], prefix=prefix))
    out.append(Case("hostfile", "entrypoint-master.sh: COMMSWEEP_WAIT_WORKERS_S=abc",
                    [opts.scripts + "/entrypoint-master.sh", "all_reduce"], ["COMMSWEEP_WAIT_WORKERS_S=abc"],
                    env=dict(master, COMMSWEEP_HOSTFILE=w + "/hf_good", COMMSWEEP_WAIT_WORKERS_S="abc"),
                    outputs=[results], prefix=prefix))
    return out


def env_cases(opts, w):
    """commsweep env (eval'd by the entrypoints): a bad PCIDEVICE_* value or network-status is
    refused naming it, with nothing on stdout (an eval would apply half the settings)."""
    root = opts.fixtures + "/sysfs/roce_sriov"

    def env(label, variables, *names, annotations=None, rc=2, names_in="message", stdout_empty=True):
        argv = [opts.commsweep, "env", "--sysfs-root", root]
        if annotations:
            argv += ["--annotations", annotations]
        return Case("env", "env: " + label, argv, names, env=variables, rc=rc, names_in=names_in,
                    stdout_empty=stdout_empty)

    return [
        env("PCIDEVICE_X not a PCI address", {"PCIDEVICE_X": "eth0"}, "PCIDEVICE_X", "'eth0'"),
        env("PCIDEVICE_X with a shell command", {"PCIDEVICE_X": "0000:18:00.3;touch /tmp/x"},
            "PCIDEVICE_X", "touch"),
        env("PCIDEVICE_X JSON cut short", {"PCIDEVICE_X": '[{"pci": "0000:18'}, "PCIDEVICE_X", "not valid JSON"),
        env("PCIDEVICE_X JSON without an address", {"PCIDEVICE_X": '{"x": 1}'}, "PCIDEVICE_X", "JSON without"),
        env("PCIDEVICE_X hex digit g", {"PCIDEVICE_X": "0000:1g:00.3"}, "PCIDEVICE_X", "1g"),
        env("PCIDEVICE_X 9,000 addresses (one VF)", {"PCIDEVICE_X": ",".join(["0000:18:00.3"] * 9000)},
            "NCCL_IB_HCA='=mlx5_3'", annotations="/dev/null", rc=0, names_in="stdout", stdout_empty=False),
        env("PCIDEVICE_X a VF without an RDMA device", {"PCIDEVICE_X": "0000:99:00.0"},
            "0000:99:00.0 (PCIDEVICE_X) has no RDMA device", annotations="/dev/null", rc=0,
            names_in="stdout", stdout_empty=False),
        env("NCCL_IB_HCA naming an absent device", {"NCCL_IB_HCA": "=mlx5_9"}, "mlx5_9", "FAIL"),
        env("network-status not JSON", {}, "network-status", "not valid JSON", annotations=w + "/ann_cut"),
        env("network-status not a list", {}, "network-status", "not a JSON list", annotations=w + "/ann_object"),
        env("network-status pci-address a number", {}, "network-status", "pci-address", "not a string",
            annotations=w + "/ann_number"),
        env("network-status interface with a newline", {}, "network-status", "not an interface name",
            annotations=w + "/ann_newline"),
        env("network-status default \"yes\"", {}, "network-status", "\"default\"", annotations=w + "/ann_default"),
        env("network-status a bad escape", {}, "annotations line 1", "escape", annotations=w + "/ann_escape"),
        env("--annotations /dev/zero", {}, "--annotations", "/dev/zero", "larger than", annotations="/dev/zero"),
        env("--annotations a folder", {}, "--annotations", "is a directory", annotations=w),
        env("--annotations missing", {}, "--annotations", "absent.ann", annotations=w + "/absent.ann"),
    ]


def transport_cases(opts, w):
    """commsweep transport LOG...: a file that is no NCCL log is bad input, not an empty pass."""
    good = opts.fixtures + "/nccl/roce_gdr.node-a.log"

    def transport(label, logs, *names, extra=()):
        argv = [opts.commsweep, "transport"] + list(extra) + logs
        return Case("transport", "transport: " + label, argv, names, stdout_empty=True)

    return [
        transport("an empty log", [w + "/empty.txt"], "empty.txt", "NCCL_DEBUG=INFO"),
        transport("binary bytes", [w + "/binary.bin"], "binary.bin", "no NCCL INFO line"),
        transport("one 16 MiB line", [w + "/huge.txt"], "huge.txt", "no NCCL INFO line"),
        transport("/dev/zero", ["/dev/zero"], "/dev/zero", "larger than"),
        transport("a folder", [w], w, "is a directory"),
        transport("missing, beside a good one", [good, w + "/absent.log"], "absent.log"),
        transport("--require-transport tcp", [good], "--require-transport", "tcp",
                  extra=["--require-transport", "tcp"]),
        transport("no log", [], "no log file"),
    ]


def health_cases(opts, w):
    """commsweep health on spoiled copies of a fixture tree: each bad counter or AER file is one
    clear 'not read' line (rc 0: a pod may lack files), and the rest of the report is intact."""
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "health",
                           "ib_flapped", "before")
    counters = "sys/class/infiniband/mlx5_1/ports/1/counters"

    def tree(name, spoil):
        root = os.path.join(w, "health-" + name)
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(fixture, root, symlinks=True)
        spoil(root)
        return root

    def put(path, data):
        def spoil(root):
            target = os.path.join(root, path)
            if os.path.isdir(target):
                shutil.rmtree(target)
            elif os.path.exists(target):
                os.remove(target)
            if data is None:
                os.makedirs(target, exist_ok=True)  # a folder where a file belongs: unreadable
                return
            with open(target, "wb") as f:
                f.write(data)
        return spoil

    def health(label, spoil, *names, rc=0, extra=(), rest="mlx5_0 port 1"):
        root = tree(label.replace(" ", "_"), spoil)
        # --verbose: what each node has, so that the rest of the report is seen intact.
        argv = [opts.commsweep, "health", "--no-gpus", "--verbose", "--sysfs-root", root] + list(extra)
        names = list(names) + ([rest] if rc == 0 and rest else [])  # the rest still reported
        return Case("health", "health: " + label, argv, names, rc=rc,
                    names_in="stdout" if rc == 0 else "message", stdout_empty=rc != 0)

    return [
        health("truncated counter", put(counters + "/symbol_error", b""), "counters/symbol_error: empty (truncated?)"),
        health("non-numeric counter", put(counters + "/link_downed", b"abc\n"), "counters/link_downed: non-numeric"),
        health("huge counter file", put(counters + "/VL15_dropped", b"7" * (1 << 20)),
               "counters/VL15_dropped: too large"),
        health("counter beyond 64 bits", put(counters + "/port_rcv_errors", b"99999999999999999999999\n"),
               "counters/port_rcv_errors: out of range"),
        health("unreadable counter", put(counters + "/port_xmit_discards", None),
               "counters/port_xmit_discards: a folder, not a file"),
        health("missing counters folder", lambda root: shutil.rmtree(os.path.join(root, counters)),
               "mlx5_1 port 1 counters/: missing"),
        health("truncated AER file", put("sys/bus/pci/devices/0000:2a:00.0/aer_dev_fatal", b"Undefined 0\nDLP 0\n"),
               "aer_dev_fatal: no TOTAL_ERR_ line"),
        health("no infiniband folder", lambda root: shutil.rmtree(os.path.join(root, "sys/class/infiniband")),
               "RDMA ports:", "missing (no RDMA devices", rest="PCIe 0000:18:00.0 (GPU)"),
        health("negative --duration", lambda root: None, "--duration", rc=2, extra=["--duration", "-1"]),
        health("--json into a missing folder", lambda root: None, "--json", rc=2,
               extra=["--json", os.path.join(w, "no-such-folder", "h.json")]),
    ]


MISSING_ROOT = "/nonexistent/path"
THRESHOLDS_SCHEMA = "schema: commsweep.health-thresholds/1\n"


def health_file_cases(opts, w):
    """Issue 24: an explicit sysfs root that is not there, a bad --health-thresholds file on every
    command that judges health, and `health --judge` on files it cannot judge: each one usage
    error (exit 2) naming the flag or variable and the path (and FILE:LINE), before anything is
    measured (the results file named by --json is never written)."""
    def put(name, text):
        path = os.path.join(w, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def case(group, label, argv, *names, env=None, outputs=()):
        return Case(group, label, argv, names, env=env, outputs=list(outputs), stdout_empty=True)

    results = os.path.join(w, "health-never-written.json")
    sweep = [opts.commsweep, "all_reduce", "-b", "8", "-e", "8", "--backend", "mpi", "--iters", "1",
             "--warmup_iters", "0", "--no-preflight", "--json", results]
    typo = put("thr_typo.yaml", THRESHOLDS_SCHEMA + "rules:\n  nvlink_crc_dat:\n    limit_per_second: 10\n")
    key = put("thr_key.yaml", THRESHOLDS_SCHEMA + "rules:\n  symbol_error:\n    limit: 1\n")
    negative = put("thr_negative.yaml", THRESHOLDS_SCHEMA + "rules:\n  nvlink_crc_data:\n    limit_per_second: -1\n")
    text = put("thr_text.yaml", THRESHOLDS_SCHEMA + "rules:\n  pcie_replay:\n    limit_per_minute: often\n")
    schema = put("thr_schema.yaml", "schema: commsweep.health-thresholds/9\nrules:\n")
    no_schema = put("thr_no_schema.yaml", "rules:\n  symbol_error:\n    severity: info\n")
    expected_entry = ("schema: commsweep.expected/1\nentries:\n  - id: e\n    gpu: any\n    gpus: 1\n"
                      "    fabric: any\n    nvls: any\n    workload: all_reduce\n    metric: busbw_gbps\n"
                      "    warn_below: 0.9\n    fail_below: 0.5\n    busbw_gbps:\n      1MiB: 1\n"
                      "    source:\n      kind: published\n      cite: c\n      url: https://example.org\n")
    expected_typo = put("expected_typo.yaml", expected_entry.replace("    gpus: 1\n", "    gpu_count: 1\n"))
    expected_ratio = put("expected_ratio.yaml", expected_entry.replace("warn_below: 0.9", "warn_below: 9"))
    one_rank_suite = put("one_rank_suite.yaml", "sweeps:\n  - name: small\n    kind: collective\n"
                                                "    tests: [all_reduce]\n    max_bytes: 1K\n")
    no_health = os.path.join(w, "no_health.json")
    with open(os.path.join(w, "good.json")) as f:
        doc = json.load(f)
    doc.pop("health", None)
    with open(no_health, "w") as f:
        json.dump(doc, f)
    empty = put("health_no_nodes.json", json.dumps({"seconds": 0, "nodes": [], "findings": [], "unread": [],
                                                    "verdict": []}))
    doc["health"] = {"nodes": [{"host": "x"}], "findings": []}
    broken = put("health_broken.json", json.dumps(doc))
    doc.pop("health")
    doc["schema"] = "commsweep.results/1"
    version_1 = put("results_v1.json", json.dumps(doc))  # as the shipped results/samples are

    def judge(label, path, *names):
        return case("health", "health --judge: " + label, [opts.commsweep, "health", "--judge", path], *names)

    return [
        case("health", "health: --sysfs-root that is not there",
             [opts.commsweep, "health", "--no-gpus", "--sysfs-root", MISSING_ROOT],
             "health: --sysfs-root %s: no such folder" % MISSING_ROOT),
        case("health", "health: COMMSWEEP_SYSFS_ROOT that is not there", [opts.commsweep, "health", "--no-gpus"],
             "health: COMMSWEEP_SYSFS_ROOT=%s: no such folder" % MISSING_ROOT, env={"COMMSWEEP_SYSFS_ROOT": MISSING_ROOT}),
        case("preflight", "preflight: --sysfs-root that is not there",
             [opts.commsweep, "preflight", "--sysfs-root", MISSING_ROOT],
             "preflight: --sysfs-root %s: no such folder" % MISSING_ROOT),
        case("flags", "sweep: COMMSWEEP_SYSFS_ROOT that is not there", sweep,
             "COMMSWEEP_SYSFS_ROOT=%s: no such folder" % MISSING_ROOT, env={"COMMSWEEP_SYSFS_ROOT": MISSING_ROOT},
             outputs=[results]),
        case("thresholds", "sweep: --health-thresholds with a rule's name mistyped", sweep + ["--health-thresholds", typo],
             "--health-thresholds %s:3: unknown rule \"nvlink_crc_dat\" (did you mean 'nvlink_crc_data'?)" % typo,
             outputs=[results]),
        case("thresholds", "suite: --health-thresholds with an unknown key",
             [opts.commsweep, "suite", one_rank_suite, "--backend", "mpi", "--json", results,
              "--health-thresholds", key],
             "%s:4: rule \"symbol_error\": key \"limit\": unknown key" % key, outputs=[results]),
        case("thresholds", "health: --health-thresholds with a negative limit",
             [opts.commsweep, "health", "--no-gpus", "--health-thresholds", negative],
             "%s:4: rule \"nvlink_crc_data\": key \"limit_per_second\": -1 is negative" % negative),
        case("thresholds", "compare: --health-thresholds with a limit that is not a number",
             [opts.commsweep, "compare", os.path.join(w, "good.json"), "--baseline", os.path.join(w, "good_baseline.json"),
              "--health-thresholds", text],
             "commsweep compare: --health-thresholds %s:4: rule \"pcie_replay\": key \"limit_per_minute\": "
             "'often' is not a number" % text),
        case("thresholds", "health --judge: --health-thresholds of another schema",
             [opts.commsweep, "health", "--judge", os.path.join(w, "good.json"), "--health-thresholds", schema],
             "%s:1: key \"schema\": \"commsweep.health-thresholds/9\" is not commsweep.health-thresholds/1" % schema),
        case("thresholds", "sweep: --health-thresholds without a schema line", sweep + ["--health-thresholds", no_schema],
             "%s:1: no \"schema: commsweep.health-thresholds/1\" line" % no_schema, outputs=[results]),
        # Issue 45: a bad expectations file, named with FILE:LINE and the key, before anything is measured.
        case("expected", "sweep: --expected with a key mistyped", sweep + ["--expected", expected_typo],
             "--expected %s:5: unknown key \"gpu_count\"" % expected_typo, outputs=[results]),
        case("expected", "sweep: COMMSWEEP_EXPECTED with a ratio that is no ratio", sweep,
             "COMMSWEEP_EXPECTED=%s:10: key \"warn_below\": 9 is outside 0-2" % expected_ratio,
             env={"COMMSWEEP_EXPECTED": expected_ratio}, outputs=[results]),
        case("expected", "expected: --expected that is not there",
             [opts.commsweep, "expected", "--expected", os.path.join(w, "absent-expected.yaml")],
             "--expected %s: cannot read" % os.path.join(w, "absent-expected.yaml")),
        case("thresholds", "sweep: --health-thresholds that is not there",
             sweep + ["--health-thresholds", os.path.join(w, "absent.yaml")],
             "--health-thresholds %s: cannot read" % os.path.join(w, "absent.yaml"), outputs=[results]),
        judge("a file that is not there", os.path.join(w, "absent.json"), "health: --judge: ", "absent.json"),
        judge("a results file cut short", os.path.join(w, "cut.json"), "health: --judge %s/cut.json: not JSON" % w),
        judge("a baseline", os.path.join(w, "good_baseline.json"),
              "schema \"commsweep.baseline/1\" is not a results file (commsweep.results/1 or commsweep.results/2), a "
              "pairs file (commsweep.pairs/2) or a commsweep health --json file"),
        judge("a results file of schema 1, as compare reads it", version_1,
              "health: --judge %s: a commsweep.results/1 file, written before runs kept health snapshots "
              "(commsweep.results/2 keeps them): nothing to judge here (`commsweep compare %s --baseline "
              "BASELINE.json` reads its rows)" % (version_1, version_1)),
        judge("a results file of schema 9", os.path.join(w, "v9.json"),
              "results schema \"commsweep.results/9\" is not the one this commsweep reads"),
        judge("results without a health member", no_health, "%s: no \"health\" member" % no_health),
        judge("a health file without snapshots", empty, "%s: its \"health\" holds no snapshots to judge" % empty),
        judge("a malformed health member", broken, "%s: malformed \"health\"" % broken),
        judge("/dev/zero", "/dev/zero", "health: --judge: /dev/zero", "larger than"),
    ]


def first_walk_cases(opts, w):
    """Inputs that surprised a new user walking the docs (issue 42), each with its exact
    message and exit code."""
    out = []

    def case(group, label, argv, message, rc=2, **kw):
        out.append(Case(group, label, argv, [message], rc=rc, **kw))

    # Every command's unknown flag gets the did-you-mean its test names and suite keys get.
    typos = [("sweep", [], "--maxbyte", "--maxbytes", "", "see --help"),
             ("ep", ["ep"], "--tokns", "--tokens", "ep: ", "see commsweep ep --help"),
             ("pairs", ["pairs"], "--sise", "--size", "pairs: ", "see commsweep pairs --help"),
             ("nvlink", ["nvlink"], "--judg", "--judge", "nvlink: ", "see commsweep nvlink --help"),
             ("suite", ["suite", opts.suites + "/ci.yaml"], "--jsn", "--json", "suite: ", "see commsweep suite --help"),
             ("health", ["health"], "--duraton", "--duration", "health: ", "commsweep health --help"),
             ("preflight", ["preflight"], "--sysfs-rot", "--sysfs-root", "preflight: ", "commsweep preflight --help"),
             ("compare", ["compare", w + "/good.json"], "--baselin", "--baseline", "", "commsweep compare --help"),
             ("baseline", ["baseline", w + "/good.json"], "--flor", "--floor", "", "commsweep baseline --help"),
             ("topo", ["topo", "validate", w + "/absent.xml"], "--no-nod", "--no-node", "", "see commsweep topo --help"),
             ("transport", ["transport"], "--require-transprt", "--require-transport", "commsweep transport: ",
              "commsweep transport --help"),
             ("env", ["env"], "--annotatons", "--annotations", "commsweep env: ", "commsweep env --help")]
    for name, words, typo, meant, prefix, see in typos:
        case("did you mean", "%s: %s" % (name, typo), [opts.commsweep] + words + [typo, "1"],
             "%sunrecognised option '%s': did you mean '%s'? (%s)" % (prefix, typo, meant, see), stdout_empty=True)
    quick = ["-n", "1", "-w", "0", "--no-preflight", "--backend", "mpi"]
    # Three sizes round onto one empty message; the note counts them and names the 16-byte block.
    out.append(Case("sizes", "3 ranks: all_gather -e 256", [opts.commsweep, "all_gather", "-e", "256"] + quick,
                    ["# 3 sizes skipped (8, 16 and 32 B): below 48 B, the smallest all_gather of float on 3 ranks: "
                     "each rank's block is a multiple of 16 B (nccl-tests' split of a buffer among ranks)"],
                    rc=0, names_in="stdout", np=3))
    # health --judge reads the results files compare reads: the shipped samples are of schema 1.
    sample = os.path.join(os.path.dirname(opts.scripts), "results", "samples", "h200x4-ep-4096.json")
    case("health", "health --judge a shipped sample (schema 1)", [opts.commsweep, "health", "--judge", sample],
         "health: --judge %s: a commsweep.results/1 file, written before runs kept health snapshots "
         "(commsweep.results/2 keeps them): nothing to judge here (`commsweep compare %s --baseline "
         "BASELINE.json` reads its rows)" % (sample, sample), stdout_empty=True)
    # health --sysfs-root: a sysfs itself (as /sys is) read as /sys; a fixture of two snapshots
    # refused naming them; a root where nothing can be read fails (exit 6), never passes.
    flapped = os.path.join(opts.fixtures, "health", "ib_flapped")
    out.append(Case("health", "health --sysfs-root a sysfs itself (as /sys)",
                    [opts.commsweep, "health", "--no-gpus", "--sysfs-root", flapped + "/before/sys"],
                    ["# health: --sysfs-root %s/before/sys: a sysfs itself (it holds class/, not sys/): read as /sys\n"
                     "# Health: " % flapped, "2 RDMA ports active; 4 PCIe links at full width: OK"], rc=0, names_in="stdout"))
    case("health", "health --sysfs-root a fixture of before/ and after/",
         [opts.commsweep, "health", "--no-gpus", "--sysfs-root", flapped],
         "health: --sysfs-root %s: holds before/ and after/, the trees of two snapshots, not one tree: give one of "
         "them (%s/before or %s/after) (rank 0 on " % (flapped, flapped, flapped), stdout_empty=True)
    empty = os.path.join(w, "empty-sysfs")
    os.makedirs(empty, exist_ok=True)
    case("health", "health --sysfs-root where nothing can be read", [opts.commsweep, "health", "--no-gpus", "--sysfs-root", empty],
         "health: nothing could be read on %s (0 RDMA ports, 0 PCIe links of GPUs or NICs, GPUs not read) under "
         "--sysfs-root %s, which holds neither sys/ nor class/: give the folder that holds sys/, or a sysfs itself such "
         "as /sys: a check that read nothing is no pass (exit 6, as for a FAIL)" % (socket.gethostname(), empty), rc=6)
    # --json: a device that refuses every write is refused before anything is measured; an output
    # that fails at the end (a FIFO nobody reads) keeps the results aside, naming the file.
    case("outputs", "--json /dev/full: refused before measuring", [opts.commsweep, "-e", "1K", "--json", "/dev/full"] +
         quick, "--json /dev/full: cannot write the results there: No space left on device", stdout_empty=True)
    unread = os.path.join(w, "unread.fifo")
    os.mkfifo(unread)
    kept_aside = re.compile(r"the results are kept in (\S+commsweep-results-\w+\.json) instead")

    def kept(out_, err_):
        found = kept_aside.search(err_)
        if not found:
            return ["no file named where the results are kept"]
        with open(found.group(1)) as f:
            doc = json.load(f)
        os.remove(found.group(1))
        sizes = [r["size_bytes"] for r in doc.get("rows", [])]
        return [] if sizes == [8 << i for i in range(8)] else ["the kept file holds rows of %s" % sizes]
    case("outputs", "--json a FIFO nobody reads: the results kept aside",
         [opts.commsweep, "-e", "1K", "--json", unread] + quick,
         "commsweep: rank 0 (host %s): output not written: --json: cannot write %s: a FIFO that nobody opened for "
         "reading within 10 s; the results are kept in %s/commsweep-results-" % (socket.gethostname(), unread, w),
         rc=OUTPUT_NOT_WRITTEN,
         env={"TMPDIR": w}, after=kept)
    # One rank (no mpirun): exit 0 as before, and a line saying that it measured no fabric.
    one_rank = ("# 1 rank: no byte leaves it, so no link is measured (busbw 0.00); run one rank per GPU, or per "
                "host with --backend mpi: mpirun -np N commsweep (N of 2 or more)")
    out.append(Case("ranks", "1 rank: busbw 0.00 everywhere", [opts.commsweep, "-e", "64"] + quick,
                    [one_rank], rc=0, names_in="stdout"))
    out.append(Case("ranks", "mpiexec -n 1: busbw 0.00 everywhere", [opts.commsweep, "-e", "64"] + quick,
                    [one_rank], rc=0, names_in="stdout", np=1))
    # health --sysfs-root /sys, as a user types it: read as /sys (not /sys/sys). What it finds is
    # the machine's: here (no RDMA port, no GPU) nothing, exit 6; on a GPU node 0.
    out.append(Case("health", "health --sysfs-root /sys", [opts.commsweep, "health", "--no-gpus", "--sysfs-root", "/sys"],
                    ["# health: --sysfs-root /sys: a sysfs itself (it holds class/, not sys/): read as /sys\n"
                     "# Health: "], rc=(0, 6), names_in="stdout", one_message=False))
    out += buffer_room_cases(opts, w)
    return out


def buffer_room_cases(opts, w):
    """-e larger than the memory (issue 42): refused before anything is printed (no preflight, no
    table header), out of memory (exit 7), in TiB/GiB, naming -e and the largest -e that fits. The
    host's available memory differs between machines: a pattern stands for its figures."""
    host = re.escape(socket.gethostname())

    def too_large(label, flag_value, sizes, np, argv_tail, prefix=r"-e/--maxbytes "):
        ranks = np or 1  # None: one process, no mpiexec
        message = re.compile(
            "^commsweep: out of memory: " + prefix + re.escape(flag_value + ": " + sizes + " of buffers per rank ") +
            r"\(send [\d.]+ [GT]iB, receive [\d.]+ [GT]iB\); rank \d+ \(host " + host + r"\) has [\d.]+ [GT]iB, its "
            r"share of the host's available memory \([\d.]+ [GT]iB over %d ranks?\)" % ranks +
            (r"; too little also on rank \d+ \(host " + host + r"\)" if ranks > 1 else "") +
            r"\. Lower " + (r"-e/--maxbytes \(-e" if prefix.startswith("-e") else r"max_bytes \(max_bytes") +
            r" \d+[KMG]? fits\) or run fewer ranks per host; nothing was measured$")
        return Case("memory", label, argv_tail, [message], rc=7, stdout_empty=True, np=np)

    quick = ["-n", "1", "-w", "0", "--backend", "mpi"]  # the preflight on: it too must not print
    out = [too_large("-e 10T on 2 ranks", "10T", "all_reduce float up to 8 TiB needs 16 TiB", 2,
                     [opts.commsweep, "-e", "10T"] + quick),
           too_large("-e 10T alone", "10T", "all_reduce float up to 8 TiB needs 16 TiB", None,
                     [opts.commsweep, "-e", "10T"] + quick)]
    with open("/proc/meminfo") as f:
        available = next(int(l.split()[1]) * 1024 for l in f if l.startswith("MemAvailable:"))
    # -e 48G (up to 32 GiB, 64 GiB of buffers a rank): refused where 2 ranks' shares are smaller.
    if available < 2 * (64 << 30):
        out.append(too_large("-e 48G on 2 ranks", "48G", "all_reduce float up to 32 GiB needs 64 GiB", 2,
                             [opts.commsweep, "-e", "48G"] + quick))
    suite = os.path.join(w, "too_large.yaml")
    with open(suite, "w") as f:
        f.write("sweeps:\n  - name: huge\n    kind: collective\n    tests: all_reduce\n    max_bytes: 10T\n")
    out.append(too_large("suite: max_bytes 10T", "10T", "all_reduce float up to 8 TiB needs 16 TiB", 2,
                         [opts.commsweep, "suite", suite] + quick[-2:],
                         prefix=re.escape(suite) + r':\d+: sweep 1 "huge": max_bytes '))
    return out


def make_files(w, good_results, good_baseline, listener_url):
    """The fixture files, written fresh into w (good_*: documents of real runs to spoil)."""
    results = json.loads(good_results)
    base = json.loads(good_baseline)

    def spoiled(doc, change):
        copy = json.loads(json.dumps(doc))
        change(copy)
        return json.dumps(copy, indent=1).encode()

    status = 'k8s.v1.cni.cncf.io/network-status="%s"\n'
    files = {
        # flags
        "empty.txt": b"",
        "bad_expert.txt": b"# rank token e1 e2\n0 0 0 1\n0 1 0 9\n0 2 1 2\n0 3 2 3\n",
        "text_field.txt": b"0 0 two 1\n",
        "neg_weight.txt": b"0 0 0 1 -0.5 1.5\n",
        "binary.bin": bytes(range(256)) * 64,
        "huge.txt": b"0 " * (8 << 20),
        "empty.json": b"",
        "broken.json": b'{"tokens": [1, 2',
        "array.json": b"[1, 2, 3]",
        "overflow.json": b'{"tokens": 1e400}',
        # compare, baseline
        "good.json": good_results.encode(),
        "good_baseline.json": good_baseline.encode(),
        "cut.json": good_results.encode()[:300],
        "v9.json": spoiled(results, lambda d: d.update(schema="commsweep.results/9")),
        "negative_size.json": spoiled(results, lambda d: d["rows"][0].update(size_bytes=-5)),
        "negative_time.json": spoiled(results, lambda d: d["rows"][0]["in_place"].update(time_us=-1)),
        "rows_string.json": spoiled(results, lambda d: d.update(rows="none")),
        "interrupted.json": spoiled(results, lambda d: d["summary"].update(complete=False, ok=False,
                                                                          interrupted_by="SIGTERM")),
        "other_settings.json": spoiled(results, lambda d: d["provenance"].update(
            arguments=d["provenance"]["arguments"] + ["-n", "7"])),
        "blank.json": b"  \n",
        "results_overflow.json": good_results.replace('"avg_busbw_gbps": ', '"avg_busbw_gbps": 1e400, "x": ', 1).encode(),
        "baseline_cut.json": good_baseline.encode()[:200],
        "baseline_v2.json": spoiled(base, lambda d: d.update(schema="commsweep.baseline/2")),
        "baseline_negative.json": spoiled(base, lambda d: d["entries"][0].update(size_bytes=-8)),
        "baseline_rule.json": spoiled(base, lambda d: d["rules"].update(fail_pct="ten")),
        "good_baseline_nvlink.json": spoiled(base, lambda d: d.update(mode="nvlink")),
        "warm.json": spoiled(results, lambda d: d["provenance"].update(buffers="warm")),
        # suite
        "alias.yaml": b"sweeps:\n  - &a\n    name: x\n  - *a\n",
        "deep.yaml": b"sweeps: " + b"[" * 10000 + b"]" * 10000 + b"\n",
        "big.yaml": b"# " + b"x" * (2 << 20) + b"\n",
        "empty.yaml": b"",
        "latin1.yaml": b"sweeps:\n  - name: caf\xe9\n",
        "cut_suite.json": b'{"sweeps": [{"name": "x", "kind": "collective", "tests": "all"',
        "unknown_key.yaml": b"sweeps:\n  - name: x\n    kind: collective\n    tests: all\n    max_byte: 1K\n",
        "big_max.yaml": b"sweeps:\n  - name: x\n    kind: collective\n    tests: all\n    max_bytes: 99999999999999999999\n",
        "tab.yaml": b"sweeps:\n  - name: x\n\tkind: collective\n",
        "ep_impl.yaml": b"- name: moe\n  kind: ep\n  experts: 4\n  impl: [alltoallv, nvl]\n",
        "ep_blocks.yaml": b"- name: moe\n  kind: ep\n  experts: 4\n  lsa_blocks: -1\n",
        "buffers.yaml": b"- name: c\n  kind: collective\n  tests: all_reduce\n  buffers: hot\n",
        "ep_entry.yaml": b"- kind: ep\n  tokens: [4, 8]\n  impl: nvl\n",
        "ep_unknown.yaml": b"- kind: ep\n  tokens: 4\n  max_bytes: 1K\n",
        "ep_typo.yaml": b"- kind: ep\n  tokns: 4\n",
        "ep_old.yaml": b"tokens: [4, 8]\nhidden: 256\n",
        "ep_collective.yaml": b"- kind: collective\n  tests: all_reduce\n",
        "decimal_size.yaml": b"sweeps:\n  - name: x\n    kind: collective\n    tests: all_reduce\n    max_bytes: 1GB\n",
        "spaced_list.yaml": b"- kind: collective\n  tests: all_reduce\n  max_bytes: 8\n  dtypes: float, bf16\n"
                            b"  iters: 1\n  warmup: 0\n",
        "sweps.yaml": b"sweps:\n  - kind: collective\n",
        # topology
        "secret.txt": SECRET.encode() + b"\n",
        "laughs.xml": b'<?xml version="1.0"?>\n<!DOCTYPE system [<!ENTITY a "aaaaaaaaaa">'
                      b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n'
                      b'<system version="1"><cpu numaid="&c;"/></system>\n',
        "xxe_file.xml": ('<?xml version="1.0"?>\n<!DOCTYPE system [<!ENTITY x SYSTEM "file://%s/secret.txt">]>\n'
                         '<system version="1"><cpu numaid="0">&x;</cpu></system>\n' % w).encode(),
        "xxe_http.xml": ('<?xml version="1.0"?>\n<!DOCTYPE system [<!ENTITY x SYSTEM "%s/entity">]>\n'
                         '<system version="1">&x;</system>\n' % listener_url).encode(),
        "dtd.xml": ('<?xml version="1.0"?>\n<!DOCTYPE system SYSTEM "%s/topo.dtd">\n'
                    '<system version="1"/>\n' % listener_url).encode(),
        "undeclared.xml": b'<system version="1"><cpu numaid="0">&xxe;</cpu></system>\n',
        "deep.xml": b'<system version="1">' + b"<cpu>" * 100000 + b"</cpu>" * 100000 + b"</system>\n",
        "big.xml": b'<system version="1" a="' + b"x" * (9 << 20) + b'"/>\n',
        "cut.xml": b'<system version="1"><cpu numaid="0"><pci busid="0000:1',
        # hostfiles
        "hf_good": b"node1\n",
        "hf_shell": ("node1\nnode2;touch %s/pwned\n" % w).encode(),
        "hf_subst": ("node1\n$(touch %s/pwned)\n" % w).encode(),
        "hf_dup": b"node1\nnode1\n",
        "hf_slots": b"node1 slots=four\n",
        "hf_slots8": b"node1 slots=8\nnode2 slots=8\n",
        "hf_empty": b"# no hosts\n\n",
        "hf_nul": b"node1\x00node2\n",
        "hf_big": b"node1\n" * 300000,
        # env: network-status annotations
        "ann_cut": (status % '[{\\"name\\": ').encode(),
        "ann_object": (status % "{}").encode(),
        "ann_number": (status % '[{\\"name\\": \\"a\\", \\"device-info\\": {\\"pci\\": {\\"pci-address\\": 5}}}]').encode(),
        "ann_newline": (status % '[{\\"name\\": \\"a\\", \\"default\\": true, \\"interface\\": \\"eth0\\\\nexport X=1\\"}]').encode(),
        "ann_default": (status % '[{\\"name\\": \\"a\\", \\"default\\": \\"yes\\", \\"interface\\": \\"eth0\\"}]').encode(),
        "ann_escape": (status % '[\\q]').encode(),
    }
    for name, data in files.items():
        with open(os.path.join(w, name), "wb") as f:
            f.write(data)
