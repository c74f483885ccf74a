#!/usr/bin/env python3
"""Validates results files against results/schema/commsweep.results.v2.schema.json.

    validate_results.py SCHEMA FILE...

Exit 0 when every file follows the schema, 1 otherwise (each error printed).
"""
import json
import sys

from results_json import validate


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = validate(doc, schema, schema)
        for e in errors:
            print(f"{path}: {e}")
        bad += bool(errors)
        print(f"{path}: {'follows' if not errors else 'does NOT follow'} the schema "
              f"({len(doc.get('rows', []))} rows)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
