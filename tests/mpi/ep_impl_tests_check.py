#!/usr/bin/env python3
"""An EP implementation is its files: the schema's ep_impls enum (`commsweep schema results`,
filled from the registry of src/ep/impls/) must name exactly the implementations that have a
test, tests/ep_impls/<name>.py, in its order. --planted shows a planted test and a removed one
caught."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

EP_IMPLS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ep_impls")


def registered(commsweep):
    schema = json.loads(subprocess.run([commsweep, "schema", "results"], check=True, capture_output=True,
                                       text=True).stdout)
    return schema["$defs"]["ep_row"]["properties"]["impl"]["enum"]


def tested(folder):
    return sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_"))


def problems(names, folder):
    tests = tested(folder)
    found = ["the EP implementation %s has no test: tests/ep_impls/%s.py" % (n, n) for n in names if n not in tests]
    found += ["tests/ep_impls/%s.py tests no registered EP implementation (src/ep/impls/)" % t
              for t in tests if t not in names]
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--commsweep", required=True)
    p.add_argument("--planted", action="store_true")
    args = p.parse_args()
    names = registered(args.commsweep)
    found = problems(names, EP_IMPLS_DIR)
    for line in found:
        print("ep_impl_tests_check: " + line)
    if found:
        return 1
    if args.planted:
        with tempfile.TemporaryDirectory() as tmp:
            extra = os.path.join(tmp, "extra")
            shutil.copytree(EP_IMPLS_DIR, extra)
            shutil.copy(os.path.join(extra, "lsa.py"), os.path.join(extra, "planted_impl.py"))
            missing = os.path.join(tmp, "missing")
            shutil.copytree(EP_IMPLS_DIR, missing)
            os.remove(os.path.join(missing, "lsa.py"))
            for folder, name in ((extra, "planted_impl"), (missing, "lsa")):
                seen = problems(names, folder)
                print("planted (%s): %s" % (name, seen))
                if not any(name in line for line in seen):
                    print("ep_impl_tests_check: the planted %s was not caught" % name)
                    return 1
    print("ep_impl_tests_check: %d EP implementations (%s), each with its test" % (len(names), ", ".join(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
