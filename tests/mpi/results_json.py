"""The results JSON: its structure against results/schema (a small JSON Schema validator, as
the CI image has no third-party Python packages), and its values against the table."""

import json
import math
import re

from expected_sweep import TESTS_BY_NAME
from nccl_table import row_key, well_formed


class SchemaError(Exception):
    """The schema file uses JSON Schema this validator does not implement."""


def validate(value, schema, root, path="$"):
    """The part of JSON Schema (2020-12) that results/schema uses. Any other keyword is an
    error, so the schema file and this checker cannot drift apart unnoticed."""
    known = {"$schema", "$id", "$defs", "title", "description", "type", "const", "enum",
             "required", "properties", "additionalProperties", "items", "minimum", "maximum", "minItems",
             "minLength", "pattern", "$ref",
             # results/schema's marker where `commsweep schema` fills an enum from the registries
             # (<build>/results/schema has them filled): a string of that list, unchecked here.
             "x-commsweep-enum"}
    unknown = set(schema) - known
    if unknown:
        raise SchemaError("the schema uses %s, which this checker does not implement"
                          % sorted(unknown))
    errors = []
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return validate(value, target, root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(value, t) for t in types):
            return ["%s: %s is not %s" % (path, json.dumps(value)[:60], " or ".join(types))]
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r is not %r" % (path, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %s" % (path, value, schema["enum"]))
    if is_type(value, "number") and "minimum" in schema and value < schema["minimum"]:
        errors.append("%s: %r is below %r" % (path, value, schema["minimum"]))
    if is_type(value, "number") and "maximum" in schema and value > schema["maximum"]:
        errors.append("%s: %r is above %r" % (path, value, schema["maximum"]))
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append("%s: empty string" % path)
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append("%s: %r does not match %s" % (path, value, schema["pattern"]))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "items" in schema:
            for i, item in enumerate(value):
                errors += validate(item, schema["items"], root, "%s[%d]" % (path, i))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: no field %r" % (path, key))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                errors += validate(item, props[key], root, "%s.%s" % (path, key))
            elif extra is False:
                errors.append("%s: field %r is not in the schema" % (path, key))
            elif isinstance(extra, dict):
                errors += validate(item, extra, root, "%s.%s" % (path, key))
    return errors


def is_type(value, t):
    # bool is an int in Python; JSON keeps them apart, and so must the check.
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "null": value is None,
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool)
                  and math.isfinite(value),
    }[t]


def print_tolerance(text):
    """Half a unit of the last digit printed: 0.005 for "12.34", 0.5e6 for "1.2e+07"."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def close(a, b, rel=1e-9, abs_tol=1e-12):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def check_timing(t, printed, test, size, nranks, sweep, where, fail):
    """A timing record against the printed half-row and against its own definitions."""
    p_time, p_algbw, p_busbw, p_wrong = printed
    for field, text in (("time_us", p_time), ("algbw_gbps", p_algbw), ("busbw_gbps", p_busbw)):
        # 1e-6 more: printf may round a half-way case either way
        fail.check(abs(t[field] - float(text)) <= print_tolerance(text) * (1 + 1e-6),
                   "%s: %s %r, table %s" % (where, field, t[field], text))
    fail.check((t["wrong"] is None) == (p_wrong == "N/A") and
               (t["wrong"] is None or t["wrong"] == int(p_wrong)),
               "%s: wrong %r, table %s" % (where, t["wrong"], p_wrong))
    times = t["rank_time_us"]
    if not fail.check(len(times) == nranks, "%s: %d per-rank times for %d ranks"
                      % (where, len(times), nranks)):
        return
    slowest = max(range(nranks), key=lambda r: times[r])
    fail.check(0 <= t["slowest_rank"] < nranks and times[t["slowest_rank"]] == times[slowest]
               and t["slowest_time_us"] == times[slowest],
               "%s: slowest rank %r (%r us) is not the slowest of %r"
               % (where, t["slowest_rank"], t["slowest_time_us"], times))
    check_iterations(t, nranks, sweep, where, fail)
    combined = {0: times[0], 1: sum(times) / nranks, 2: min(times), 3: max(times)}[sweep.average]
    fail.check(close(t["time_us"], combined), "%s: time_us %r is not the -a %d combination of %r"
               % (where, t["time_us"], sweep.average, times))
    if t["time_us"] > 0:
        algbw = size / t["time_us"] / 1e3  # bytes per us -> GB/s (1e9 B/s)
        fail.check(close(t["algbw_gbps"], algbw), "%s: algbw %r, size / time gives %r"
                   % (where, t["algbw_gbps"], algbw))
        busbw = t["algbw_gbps"] * test.bus_factor(nranks)
        fail.check(close(t["busbw_gbps"], busbw), "%s: busbw %r, algbw x %s factor gives %r"
                   % (where, t["busbw_gbps"], test.name, busbw))


TAILS_BUDGET_US, TAILS_MIN_ITERATIONS = 100_000, 10  # src/sweep/sweep.hpp


def tails_iterations(iters, iteration_us):
    """How many iterations the tails' pass times (sweep.hpp's tails_iterations)."""
    if iteration_us * iters <= TAILS_BUDGET_US:
        return iters
    return min(iters, max(TAILS_MIN_ITERATIONS, int(TAILS_BUDGET_US / iteration_us)))


def check_iterations(t, nranks, sweep, where, fail):
    """Issue 26: every timed iteration of every rank (unless --per-iteration off), and NCCL's
    choice as the backend can tell it."""
    it = t.get("per_iter")
    if sweep.flags.get("per_iteration") == "off":
        fail.check(it is None, "%s: per_iter kept with --per-iteration off" % where)
    elif fail.check(it is not None, "%s: no per_iter" % where):
        # -G: one per graph launch; else the tails' pass's count from rank 0's table time
        samples = int(sweep.flags.get("cudagraph", "0")) or tails_iterations(sweep.iters, t["rank_time_us"][0])
        fail.check(len(it["times_us"]) == samples and len(it["per_process_max_times_us"]) == nranks,
                   "%s: per_iter holds %d iterations of %d ranks, expected %d of %d"
                   % (where, len(it["times_us"]), len(it["per_process_max_times_us"]), samples, nranks))
        fail.check(it["min_us"] <= it["p50_us"] <= it["p95_us"] <= it["p99_us"] <= it["max_us"],
                   "%s: per_iter statistics out of order %r" % (where, it))
        # Issue 40: the tails have a pass of their own, never inside the table's time.
        fail.check(it.get("pass") == "separate-pass", "%s: per_iter pass %r, not separate-pass" % (where, it.get("pass")))
    want_method = "device-span" if sweep.flags.get("timer") == "device" else "host-span"
    fail.check(t.get("method") == want_method, "%s: method %r, expected %s (the -n iterations back to back, "
               "one clock around them)" % (where, t.get("method"), want_method))
    if sweep.backend == "mpi":
        fail.check(t.get("nccl", {}).get("algorithm") == "n/a (mpi backend)",
                   "%s: NCCL's choice on the mpi backend %r" % (where, t.get("nccl")))


def check_json(doc, schema, sections, sweep, nranks, args, fail):
    """The results file: its structure, then its values against the table and themselves.
    False when the structure is wrong (and nothing else was checked)."""
    errors = validate(doc, schema, schema)
    for e in errors[:20]:
        fail.check(False, "results JSON does not follow the schema: " + e)
    if errors:
        return False
    fail.check(doc.get("ep_rows") == [], "a collective sweep wrote ep_rows %r"
               % (doc.get("ep_rows"),))
    check_provenance(doc["provenance"], sections, sweep, nranks, args, fail)
    fail.check(doc["provenance"].get("buffers") == sweep.buffers,
               "provenance.buffers %r, asked for %r (--buffers, default cold)"
               % (doc["provenance"].get("buffers"), sweep.buffers))
    printed = [(s, r) for s in sections for r in s.rows]
    if not all(well_formed(r) for _, r in printed):
        return True  # reported with the table; its rows cannot be paired with the records
    rows = doc["rows"]
    if not fail.check(len(rows) == len(printed), "JSON has %d rows, the tables %d"
                      % (len(rows), len(printed))):
        return True
    for i, (rec, (s, r)) in enumerate(zip(rows, printed)):
        where = "JSON row %d (%s %s B %s)" % (i, rec["test"], rec["size_bytes"], rec["type"])
        key = (rec["test"], rec["size_bytes"], rec["count"], rec["type"], rec["redop"],
               rec["root"])
        if not fail.check(key == (s.test,) + row_key(r),
                          "%s: %s, table row %s" % (where, key, " ".join(r))):
            continue
        test = TESTS_BY_NAME[s.test]
        check_timing(rec["out_of_place"], r[5:9], test, rec["size_bytes"], nranks, sweep,
                     where + " out_of_place", fail)
        check_timing(rec["in_place"], r[9:13], test, rec["size_bytes"], nranks, sweep,
                     where + " in_place", fail)
    check_totals(rows, doc["summary"], sections, fail)
    return True


def check_provenance(prov, sections, sweep, nranks, args, fail):
    fail.check(prov["ranks"] == nranks, "provenance.ranks %r, ran %d" % (prov["ranks"], nranks))
    fail.check(len(prov["hosts"]) == nranks,
               "provenance.hosts has %d entries" % len(prov["hosts"]))
    fail.check([g["rank"] for g in prov["gpus"]] == list(range(nranks)),
               "provenance.gpus ranks %s" % [g["rank"] for g in prov["gpus"]])
    fail.check(prov["arguments"] == args,
               "provenance.arguments %r, given %r" % (prov["arguments"], args))
    fail.check(prov["mpi_version"] != "", "provenance.mpi_version is empty")
    if sweep.backend in ("mpi", "nccl"):
        fail.check(prov["backend"] == sweep.backend, "provenance.backend %r, asked for %r"
                   % (prov["backend"], sweep.backend))
    if not sections:
        return
    mine = (prov["commsweep_version"], prov["git_hash"], prov["backend"])
    if sections[0].version:
        fail.check(mine == sections[0].version, "provenance (version, git hash, backend) %r "
                   "differs from the table's %r" % (mine, sections[0].version))
    for d, g, host in zip(sections[0].devices, prov["gpus"], prov["hosts"]):
        printed = (d[2], int(d[3]), d[4], d[5].strip())
        fail.check(printed == (g["host"], g["device"], g["pci_bus_id"], g["name"])
                   and g["host"] == host,
                   "rank %s: table device line %s, JSON %s" % (d[0], d, g))


def halves(records):
    return [h for rec in records for h in (rec["out_of_place"], rec["in_place"])]


def check_totals(rows, summary, sections, fail):
    """Footers and summary: nccl-tests' "Avg bus bandwidth" is the mean busbw of every
    measured half-row; the wrong counts add up."""
    k = 0
    for s in sections:
        mine = halves(rows[k:k + len(s.rows)])
        k += len(s.rows)
        mean = sum(h["busbw_gbps"] for h in mine) / len(mine) if mine else 0.0
        if s.avg_busbw is not None:
            fail.check(close(s.avg_busbw, mean, rel=1e-5, abs_tol=1e-9),
                       "%s: footer avg busbw %r, the JSON rows give %r"
                       % (s.test, s.avg_busbw, mean))
        wrong = sum(h["wrong"] or 0 for h in mine)
        if s.oob:
            fail.check(s.oob[0] == wrong, "%s: footer counts %d wrong, the JSON rows %d"
                       % (s.test, s.oob[0], wrong))
    every = halves(rows)
    mean = sum(h["busbw_gbps"] for h in every) / len(every) if every else 0.0
    wrong_total = sum(h["wrong"] or 0 for h in every)
    fail.check(close(summary["avg_busbw_gbps"], mean), "summary.avg_busbw_gbps %r is not the "
               "mean busbw of the rows, %r" % (summary["avg_busbw_gbps"], mean))
    fail.check(summary["wrong_total"] == wrong_total, "summary.wrong_total %r, rows sum to %d"
               % (summary["wrong_total"], wrong_total))
    fail.check(summary["complete"] is True, "summary.complete is %r" % summary["complete"])
    fail.check(summary["ok"] == (wrong_total == 0), "summary.ok is %r with %d wrong elements"
               % (summary["ok"], wrong_total))


def check_gpus(doc, one_per_rank, fail):
    """Each rank drove its own GPU; with one visible GPU per rank, that GPU is device 0."""
    prov = doc["provenance"]
    fail.check(prov["backend"] == "nccl", "backend %r, expected nccl" % prov["backend"])
    fail.check(prov["nccl_version"] not in ("", "none", "unknown"),
               "nccl_version %r" % prov["nccl_version"])
    seen = {}
    for g in prov["gpus"]:
        fail.check(g["device"] >= 0 and g["pci_bus_id"] not in ("", "-"),
                   "rank %d has no GPU: %s" % (g["rank"], g))
        other = seen.setdefault((g["host"], g["pci_bus_id"]), g["rank"])
        fail.check(other == g["rank"], "ranks %d and %d share GPU %s on %s"
                   % (other, g["rank"], g["pci_bus_id"], g["host"]))
        if one_per_rank:
            fail.check(g["device"] == 0, "rank %d uses device %d; it should see one GPU only"
                       % (g["rank"], g["device"]))


