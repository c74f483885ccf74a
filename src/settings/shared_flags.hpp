// The flags several commands take, each declared once: its name, letter and type here; what a
// command may give of its own is the help text (and, where named, the default and the --help
// section), because the same flag says a different thing in `compare --help` than in a sweep's.
// A command's table takes them with settings::entry_of(shared::json(...), apply).
#pragma once

#include <optional>
#include <string>

#include "settings/setting.hpp"

namespace commsweep::settings::shared {

// A week: the longest -T a typo cannot turn into a job parked for ever.
inline constexpr long long kMaxTimeoutS = 7 * 24 * 3600;

// -h/--help: "show this help".
Spec help(std::string section = {});
// --json FILE: what the command writes as JSON.
Spec json(std::string help, std::string section = {});
// -T/--timeout SECONDS (a whole number, 1 to kMaxTimeoutS), with the command's default.
Spec timeout(std::string default_seconds, std::string help, std::string section = {});
// --health-thresholds FILE: the YAML limits the health findings are judged with.
Spec health_thresholds(std::string help, std::string section = {});
// --expected FILE: expected figures over the built-in ones (results/expected/, docs/expected.md).
Spec expected(std::string help, std::string section = {});
// --show-expected: print the expected figures (results/expected/, --expected) and each figure's
// share of them as the table's columns; suite key show_expected.
Spec show_expected(std::string help, std::string section = {});
// --fault FORM: the tests' planted fault (faults/catalog.hpp lists each workload's forms).
Spec fault(std::string help, std::string section);
// --sysfs-root FOLDER: read /sys (and /proc) under it.
Spec sysfs_root(std::optional<std::string> default_text, std::string help = {}, std::string section = {});
// --annotations FILE: the pod's downward-API annotations file.
Spec annotations(std::string help);
// --bind auto|none (default none): a rank's CPU binding.
Spec bind(std::string help, std::string section = {});
// --require-transport NAME: the transport NCCL must use.
Spec require_transport(std::optional<std::string> default_text, std::string help, std::string section = {});
// --require-gdr: NCCL's network connections must use GPUDirect RDMA.
Spec require_gdr(std::string help, std::string section = {});
// --shape NAME: the node shape (BM.GPU.H100.8), for its topology file and description.
Spec shape(std::string help = {}, std::string section = {});
// -o/--output FILE: where the command writes what it makes.
Spec output(std::string help);
// --html FILE: a self-contained HTML report (compare's plots, a workload's figures).
Spec html(std::string help, std::string section = {});
// --prometheus FILE: Prometheus text exposition (node-exporter textfile collector: *.prom); the
// help says what, where a command's metrics need saying.
Spec prometheus(std::string help = "write Prometheus text exposition here (node-exporter textfile collector: *.prom)",
                std::string section = {});
// --mode NAME: the fabric mode (nvlink, ib, roce-sriov, ...).
Spec mode(std::optional<std::string> default_text, std::string help);
// --descriptions FOLDER: the shape descriptions (topo).
Spec descriptions();
// --out PATH: where topo writes.
Spec out();

}  // namespace commsweep::settings::shared
