#!/usr/bin/env python3
"""Validates results files against results/schema (tests/mpi/results_json.py's validator), for
the golden files the unit tests compare the writer's output with.

    results_schema_check.py SCHEMA FILE...
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from results_json import validate  # noqa: E402


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = validate(doc, schema, schema)
        for e in errors:
            print("%s: %s" % (path, e))
        bad += bool(errors)
        print("%s: %s" % (path, "FAIL" if errors else "valid"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
