// A `commsweep nvlink --json` document (commsweep.nvlink/1) as figures (report/figure.hpp): the
// nvlink workload's `figures` (run/workloads/nvlink.cpp), through which csv, baseline and compare
// read it. Read from the document's documented fields, so that files of earlier releases are read.
#pragma once

#include <nlohmann/json.hpp>

#include "report/figure.hpp"

namespace commsweep::nvlink {

// Per node and ordered GPU pair (case host, src, dst): each copy test's bandwidth (case part
// test: ce_write, ce_read, ce_bidir, sm_write, sm_read, sm_bidir) and its latency; per GPU
// (case host, gpu) all_to_one and one_to_all; a figure not measured (null) is none. The
// pair's wrong words (over its tests) are its ce_write's, a target's its all_to_one's. Judged
// as baselines always have: test "nvlink", type "-", config "<host> GPU <src> (<bus id>) -> GPU
// <dst> (<bus id>)" or "<host> GPU <i> (<bus id>)", size the bytes per copy, place the test or
// "latency". Throws std::runtime_error naming the field of a malformed document.
report::Sheet sheet_from_json(const nlohmann::json& doc);

}  // namespace commsweep::nvlink
