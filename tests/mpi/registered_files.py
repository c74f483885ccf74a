"""The check that a registry (collectives, EP implementations) and its folder of tests name the
same things, and its --planted proof: a planted test and a removed one, in copies of the
folder, are caught."""
import argparse
import os
import shutil
import tempfile


def check_main(tool, folder, problems, plant_from, planted_name, removed, summary):
    """problems(commsweep, folder) -> the lines that say what differs. plant_from.py is copied to
    planted_name.py in one copy of FOLDER, removed.py is deleted from another: both must be named.
    summary(commsweep) is the line printed when all is well. Returns the exit code."""
    p = argparse.ArgumentParser()
    p.add_argument("--commsweep", required=True)
    p.add_argument("--planted", action="store_true")
    args = p.parse_args()
    found = problems(args.commsweep, folder)
    for line in found:
        print("%s: %s" % (tool, line))
    if found:
        return 1
    if args.planted:
        with tempfile.TemporaryDirectory() as tmp:
            extra = os.path.join(tmp, "extra")
            shutil.copytree(folder, extra)
            shutil.copy(os.path.join(extra, plant_from + ".py"), os.path.join(extra, planted_name + ".py"))
            missing = os.path.join(tmp, "missing")
            shutil.copytree(folder, missing)
            os.remove(os.path.join(missing, removed + ".py"))
            for copy, name in ((extra, planted_name), (missing, removed)):
                seen = problems(args.commsweep, copy)
                print("planted (%s): %s" % (name, seen))
                if not any(name in line for line in seen):
                    print("%s: the planted %s was not caught" % (tool, name))
                    return 1
    print("%s: %s" % (tool, summary(args.commsweep)))
    return 0
