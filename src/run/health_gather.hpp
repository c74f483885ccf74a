// The health snapshots of a command, gathered from one reader rank per node (the node's first
// rank): before() and after() are collective; rank 0 gets every node's report. The readers
// (src/health/) know no MPI; this is where they meet the World.
//   COMMSWEEP_SYSFS_ROOT  the folder /sys is read under (default /; tests point it at trees)
//   COMMSWEEP_HEALTH=0    no snapshots around the measuring commands
//   COMMSWEEP_NVML_RECORDING=FILE  the GPUs read from FILE's replay in place of the driver's
//                         NVML (run/nvml_recording_env.hpp): every GPU of the recording is one
//                         of the node's, on any backend; the before snapshot reads each GPU's
//                         first sample, the after snapshot its next
#pragma once

#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "health/join.hpp"
#include "health/nvml_api.hpp"
#include "health/report.hpp"
#include "health/tree.hpp"

namespace commsweep {

class World;

class HealthWatch {
 public:
  // NVML (or COMMSWEEP_NVML_RECORDING's replay) is opened on the reader ranks only when
  // READ_GPUS.
  HealthWatch(World& world, std::string sysfs_root, double timeout_s, bool read_gpus = true);
  ~HealthWatch();
  HealthWatch(const HealthWatch&) = delete;
  HealthWatch& operator=(const HealthWatch&) = delete;

  bool reader() const { return reader_; }
  // The before snapshot (readers), XID events armed.
  void before();
  // The after snapshot, gathered to rank 0 (with the before, where taken) and judged under
  // RULES; the findings joined with EVIDENCE (rank 0's). Every rank calls it; others get an
  // empty report.
  health::HealthReport after(const std::vector<health::TrafficEvidence>& evidence = {},
                             const health::RuleBook& rules = health::builtin_rules());

 private:
  World& world_;
  health::Tree tree_;
  double timeout_s_;
  bool reader_ = false;
  std::unique_ptr<health::NvmlApi> nvml_;
  std::optional<health::Snapshot> before_;
};

// Whether the measuring commands take snapshots (COMMSWEEP_HEALTH is not "0").
bool health_around_runs();
// COMMSWEEP_SYSFS_ROOT, or "/".
std::string health_sysfs_root();

// ROOT, as NAMED ("--sysfs-root /x" or "COMMSWEEP_SYSFS_ROOT=/x"), must be a folder on every
// node's reader rank (the node's first): an explicit root that is not there would read nothing
// and pass. Collective; a usage Error on every rank naming the rank and host of the first.
// HEALTH: the root the health snapshots read (health/tree.hpp), which is also refused where it
// holds the trees of two snapshots (before/ and after/), and read as /sys where it is a sysfs
// itself (/sys: rank 0 says so on stdout).
void require_sysfs_root(World& world, const std::string& root, const std::string& named, double timeout_s,
                        bool health = false);
// The thresholds file: --health-thresholds FLAG, else COMMSWEEP_HEALTH_THRESHOLDS (what the
// Volcano Job's ConfigMap sets in every pod, volcano/components/health-thresholds), and how it
// was given; an empty path: the built-in table.
struct ThresholdsFile {
  std::string path;
  std::string named;  // "--health-thresholds" or "COMMSWEEP_HEALTH_THRESHOLDS="
};
ThresholdsFile thresholds_file(const std::string& flag);
// Its rules (the built-in ones without a file), read and checked on rank 0 before anything is
// measured. Collective; a bad file is a usage Error on every rank (rank 0's names the file,
// line and key).
health::RuleBook health_rules(World& world, const ThresholdsFile& file, double timeout_s);
// The same without MPI (compare, health --judge).
health::RuleBook health_rules(const ThresholdsFile& file);

}  // namespace commsweep

namespace commsweep {

// Around a measuring command: the before snapshot when made (unless COMMSWEEP_HEALTH=0), the
// after one, the block printed on rank 0 after the tables, and the "health" member returned.
class RunHealth {
 public:
  // RULES judge the findings (rank 0's matter); VERBOSE prints every finding, INFO included.
  RunHealth(World& world, double timeout_s, health::RuleBook rules = {}, bool verbose = false);
  // Collective. Rank 0: prints the block to OUT, returns report_json (null elsewhere and when off).
  nlohmann::json finish(std::ostream& out, const std::vector<health::TrafficEvidence>& evidence = {});
  // The same, printing nothing: block() is printed where the command wants it.
  nlohmann::json finish_quietly(const std::vector<health::TrafficEvidence>& evidence);
  // Rank 0 after finish_quietly: the '#' block (empty when off).
  std::string block() const { return block_; }
  // Rank 0 after finish: the report (findings, verdict), for a command's own evidence lines.
  const health::HealthReport& report() const { return report_; }

 private:
  World& world_;
  std::unique_ptr<HealthWatch> watch_;
  health::RuleBook rules_;
  bool verbose_ = false;
  health::HealthReport report_;
  std::string block_;
};

// Every host of the job as one piece of evidence ("the transport check").
health::TrafficEvidence whole_job(const World& world, const std::string& what);

}  // namespace commsweep
