// What a run measured beside its rows: the backend, the ranks and nodes, the GPUs per node, the
// shape, the buffers and the timer, and of nvlink and pairs files the hosts and bytes of their
// matrices. `compare` judges a run only against a baseline of the same
// (a 2-rank host-memory run against 4 x H200 on NVLink would fail hundreds of rows for nothing,
// and say nothing of why), and `baseline` records it per source run (results/schema/baseline.md).
#pragma once

#include <string>
#include <vector>

#include "report/result.hpp"

namespace commsweep::regress {

// Every value is text, "" where unknown (a baseline written before it was recorded) or where it
// does not apply (buffers and timer of a run without collective rows).
struct MeasuredSetup {
  std::string backend;        // "nccl", "mpi"
  std::string ranks;          // "4"
  std::string nodes;          // distinct hosts: "1"
  std::string gpus_per_node;  // "4"; "2+2+1" where the nodes differ; "0" on host memory
  std::string shape;          // shape_of(): "h200x4", "cpux2"
  std::string buffers;        // "cold", "warm"
  std::string timer;          // "host", "device"
  // The matrices (the workloads' own documents: report::Sheet), whose keys name their nodes: the nodes,
  // and per document "<test>:<bytes>", each a list joined by blanks ("vm/node0 vm/node1",
  // "nvlink:256M pairs:1M"); "" for a run without them.
  std::string matrix_hosts;
  std::string matrix_bytes;
};

MeasuredSetup measured_setup(const report::Results& run);

// The properties in the order they are checked and printed, each with its name for people.
struct SetupProperty {
  const char* name;  // "backend", "GPUs per node"
  const char* key;   // its JSON key: "backend", "gpus_per_node"
  std::string MeasuredSetup::*value;
  // A list joined by blanks, checked item by item: each of the run's must be in the baseline
  // (a run of fewer nodes than the baseline passes the check; their pairs are then missing).
  bool list = false;
};
const std::vector<SetupProperty>& setup_properties();

// A property whose value differs: the run's values and the baseline's (several where several
// files were judged together, or the baseline was made of runs of several settings).
struct SetupDifference {
  std::string property;
  std::string run;
  std::string baseline;
};

struct SetupCheck {
  std::vector<SetupDifference> differences;
  // What could not be checked, each with why ("mode: give --mode"), for the line that says so.
  std::vector<std::string> not_checked;
  bool allowed = false;  // --allow-mismatch: judged anyway, the differences said before the verdicts
};

// The run's files against the baseline's sources. run_mode is compare's --mode ("" not given);
// baseline_mode the baseline's ("default": made without --mode).
SetupCheck check_setup(const std::vector<MeasuredSetup>& run, const std::vector<MeasuredSetup>& baseline,
                       const std::string& run_mode, const std::string& baseline_mode);

// "backend: run mpi, baseline nccl", one property.
std::string describe(const SetupDifference& d);

}  // namespace commsweep::regress
