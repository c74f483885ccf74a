// `commsweep nvlink`'s measurement step in the one lifecycle (run/measure.hpp), alone or as a
// suite's sweep: the job checked (a GPU on every rank, one rank per GPU, not the mpi backend,
// the planted fault inside one node), every node measured at once (nvlink/gpu/measure_node.hpp), the
// ranks' parts gathered on rank 0 (to the keeper of its own file when alone), and its report:
// the matrices, findings and the commsweep.nvlink/1 document (its --html and --prometheus are
// the lifecycle's, from that document's figures: run/report_files.hpp).
#pragma once

#include <string>
#include <vector>

#include "nvlink/settings.hpp"
#include "run/document_keeper.hpp"
#include "run/workload.hpp"

namespace commsweep {

// Usage Errors on every rank, before anything runs: the first rank without a GPU (and why), a
// node with more ranks than GPUs, --backend mpi, a planted fault's ranks on two nodes.
void check_nvlink_job(World& world, const nvlink::NvlinkSettings& settings, BackendChoice backend);

// `commsweep nvlink --judge FILE`: FILE (commsweep.nvlink/1) judged again with SETTINGS'
// thresholds, its report printed, RUN's --json, --html and --prometheus (run/report_files.hpp)
// written; no MPI. Its pairs are judged by the expected figures of its hardware too (RUN's
// --expected, else COMMSWEEP_EXPECTED, over the built-in table). Returns the run's exit code; a
// file that is not an nvlink results file, or a bad expectations file, is a usage Error.
int judge_nvlink_file(const nvlink::NvlinkSettings& settings, const RunSettings& run);

// Alone with --json: the run as planned (its settings), to the keeper of its document.
void plan_nvlink_document(DocumentKeeper& keeper, const nvlink::NvlinkSettings& settings);

// Every node measured on the run's backend; rank 0's outcome: the slow pairs as the health
// findings' evidence, and its report (the matrices and findings, the commsweep.nvlink/1
// document; the verdict 10 for a slow link).
Outcome run_nvlink_stage(Stage& stage, const nvlink::NvlinkSettings& settings);

}  // namespace commsweep
