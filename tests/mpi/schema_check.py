#!/usr/bin/env python3
"""The schemas the tests validate against are results/schema with their enums filled from the
registries (`commsweep schema`, written by the build to <build>/results/schema):

- each filled file is what `commsweep schema NAME` prints now;
- the `test` enum of the results schema is `commsweep list`'s collectives (the baseline's adds
  "ep", "pairs" and "nvlink", whose files a baseline judges too);
- a results file validates against it, and the same file with an unknown test name is refused
  (the checked-in schema, with the marker, is looser and takes it).

    schema_check.py --commsweep BIN --filled DIR --source DIR --results FILE --baseline FILE
"""
import argparse
import copy
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
from results_json import validate  # noqa: E402

FILES = {"results": "commsweep.results.v2.schema.json",
         "baseline": "commsweep.baseline.v1.schema.json",
         "pairs": "commsweep.pairs.v2.schema.json"}


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    for flag in ("--commsweep", "--filled", "--source", "--results", "--baseline"):
        p.add_argument(flag, required=True)
    opts = p.parse_args()
    problems = []

    def run(*args):
        return subprocess.run([opts.commsweep, *args], check=True, capture_output=True,
                              text=True).stdout

    filled = {}
    for name, file in FILES.items():
        printed = json.loads(run("schema", name))
        filled[name] = load(os.path.join(opts.filled, file))
        if printed != filled[name]:
            problems.append("%s/%s is not what `commsweep schema %s` prints" % (opts.filled, file, name))
        if "x-commsweep-enum" in json.dumps(filled[name]):
            problems.append("%s still holds a marker" % file)
    collectives = [line.split()[0] for line in run("list").splitlines() if "(" not in line]
    test_enum = filled["results"]["$defs"]["row"]["properties"]["test"]["enum"]
    if test_enum != collectives:
        problems.append("the results schema's test enum %s is not `commsweep list` %s" % (test_enum, collectives))
    base_enum = filled["baseline"]["$defs"]["entry"]["properties"]["test"]["enum"]
    if base_enum != collectives + ["ep", "pairs", "nvlink"]:
        problems.append("the baseline schema's test enum %s is not `commsweep list` + ep, pairs, nvlink" % base_enum)

    for name, document in (("results", load(opts.results)), ("baseline", load(opts.baseline))):
        schema = filled[name]
        source = load(os.path.join(opts.source, FILES[name]))
        rows = "rows" if name == "results" else "entries"
        errors = validate(document, schema, schema)
        if errors:
            problems.append("%s: %s does not follow the filled schema: %s" % (name, opts.results, errors[:3]))
        planted = copy.deepcopy(document)
        planted[rows][0]["test"] = "no_such_collective"
        errors = validate(planted, schema, schema)
        print("%s, a row's test planted as no_such_collective: %s" % (name, errors))
        if not any("no_such_collective" in e for e in errors):
            problems.append("the filled %s schema takes an unknown test name" % name)
        if validate(planted, source, source):
            problems.append("the checked-in %s schema (a marker, looser) refuses the planted row" % name)

    for line in problems:
        print("schema_check: " + line)
    print("schema_check: %s" % ("FAILED" if problems else "the filled schemas follow the registries"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
