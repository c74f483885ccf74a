#!/usr/bin/env python3
"""An EP implementation is its files: the schema's ep_impls enum (`commsweep schema results`,
filled from the registry of src/ep/impls/) must name exactly the implementations that have a
test, tests/ep_impls/<name>.py, in its order. --planted shows a planted test and a removed one
caught."""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
from registered_files import check_main  # noqa: E402

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


def summary(commsweep):
    names = registered(commsweep)
    return "%d EP implementations (%s), each with its test" % (len(names), ", ".join(names))


def main():
    return check_main("ep_impl_tests_check", EP_IMPLS_DIR,
                      lambda commsweep, folder: problems(registered(commsweep), folder),
                      "lsa", "planted_impl", "lsa", summary)


if __name__ == "__main__":
    sys.exit(main())
