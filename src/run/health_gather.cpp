#include "run/health_gather.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "health/health_json.hpp"
#include "health/nvml_loader.hpp"
#include "health/snapshot.hpp"
#include "health/tree.hpp"
#include "health/thresholds.hpp"
#include "core/error.hpp"
#include "run/nvml_recording_env.hpp"
#include "runtime/world.hpp"

namespace commsweep {

bool health_around_runs() {
  const char* v = std::getenv("COMMSWEEP_HEALTH");
  return !(v && std::string(v) == "0");
}

std::string health_sysfs_root() {
  const char* v = std::getenv("COMMSWEEP_SYSFS_ROOT");
  return v && *v ? v : "/";
}

void require_sysfs_root(World& world, const std::string& root, const std::string& named, double timeout_s,
                        bool health) {
  std::string why;
  if (world.node_rank() == 0) {
    std::error_code ec;
    if (!std::filesystem::exists(root, ec)) why = named + ": no such folder";
    else if (!std::filesystem::is_directory(root, ec)) why = named + ": not a folder";
    else if (health && health::root_kind(root) == health::RootKind::Snapshots)
      why = named + ": holds before/ and after/, the trees of two snapshots, not one tree: give one of them (" +
            root + "/before or " + root + "/after)";
  }
  const auto all = world.gather(why, Phase{"checking the sysfs root", Deadline::after(timeout_s)});
  std::string first;
  for (std::size_t r = 0; r < all.size() && first.empty(); ++r)
    if (!all[r].empty()) first = all[r] + " (rank " + std::to_string(r) + " on " + world.hosts_by_rank()[r] + ")";
  int bad = first.empty() ? 0 : 1;
  world.broadcast(&bad, sizeof bad, 0, Phase{"checking the sysfs root", Deadline::after(timeout_s)});
  if (bad) throw_usage(world.rank() == 0 ? first : named + ": not a folder on every node");
  if (health && world.rank() == 0 && health::root_kind(root) == health::RootKind::Sysfs)
    std::cout << "# " << named << ": a sysfs itself (it holds class/, not sys/): read as /sys\n" << std::flush;
}

ThresholdsFile thresholds_file(const std::string& flag) {
  if (!flag.empty()) return {flag, "--health-thresholds"};
  const char* v = std::getenv("COMMSWEEP_HEALTH_THRESHOLDS");
  return v && *v ? ThresholdsFile{v, "COMMSWEEP_HEALTH_THRESHOLDS="} : ThresholdsFile{};
}

health::RuleBook health_rules(const ThresholdsFile& file) {
  return file.path.empty() ? health::RuleBook{} : health::read_thresholds_file(file.path, file.named);
}

health::RuleBook health_rules(World& world, const ThresholdsFile& file, double timeout_s) {
  health::RuleBook rules;
  std::string why;
  if (world.rank() == 0) {
    try {
      rules = health_rules(file);
    } catch (const Error& e) {
      why = e.what();
    }
  }
  if (world.sum(why.empty() ? 0 : 1, Phase{"checking the health thresholds", Deadline::after(timeout_s)}) > 0)
    throw_usage(world.rank() == 0 ? why : file.named + " " + file.path + ": refused on rank 0");
  return rules;
}

HealthWatch::HealthWatch(World& world, std::string sysfs_root, double timeout_s, bool read_gpus)
    : world_(world), tree_(std::move(sysfs_root)), timeout_s_(timeout_s), reader_(world.node_rank() == 0) {
  if (!read_gpus) return;
  // Every rank opens a recording, so that one that cannot be read stops them all alike; the
  // readers keep theirs (a replay of their own: the window reads' samples stay where they are).
  NvmlRecording recording = nvml_recording();
  if (!reader_) return;
  nvml_ = recording.nvml ? std::move(recording.nvml) : health::load_nvml();
  if (nvml_->unavailable().empty()) nvml_->register_xid_events();
}

HealthWatch::~HealthWatch() = default;

void HealthWatch::before() {
  if (reader_) before_ = health::take_snapshot(tree_, nvml_.get(), world_.host(), "before");
}

namespace {
// Testing only (tests/mpi/health_check.py): the reader waits, at most kTestWaitSeconds, for
// this file before its after snapshot, so that a test can change the tree during the run
// and know the change is seen.
constexpr double kTestWaitSeconds = 30;
void wait_for_test_file() {
  const char* path = std::getenv("COMMSWEEP_HEALTH_AFTER_WAITS_FOR");
  if (!path || !*path) return;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(kTestWaitSeconds);
  std::error_code ec;
  while (!std::filesystem::exists(path, ec) && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}
}  // namespace

health::HealthReport HealthWatch::after(const std::vector<health::TrafficEvidence>& evidence,
                                        const health::RuleBook& rules) {
  std::string mine;
  if (reader_) {
    wait_for_test_file();
    nlohmann::json doc{{"after", health::to_json(health::take_snapshot(tree_, nvml_.get(), world_.host(),
                                                                        before_ ? "after" : "now"))}};
    if (before_) doc["before"] = health::to_json(*before_);
    mine = doc.dump();
  }
  // Generous: reading NVML of 8 GPUs takes a fraction of a second, but a node may be slow.
  const auto all = world_.gather(mine, Phase{"health snapshots (gather)", Deadline::after(timeout_s_ + 60)});
  health::HealthReport report;
  if (world_.rank() != 0) return report;
  std::vector<health::NodeHealth> nodes;
  std::vector<std::string> broken;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    try {
      const auto doc = nlohmann::json::parse(all[r]);
      health::NodeHealth n;
      n.after = health::snapshot_from_json(doc.at("after"));
      if (doc.contains("before")) n.before = health::snapshot_from_json(doc.at("before"));
      n.host = n.after.host;
      nodes.push_back(std::move(n));
    } catch (const std::exception& e) {
      broken.push_back(world_.hosts_by_rank()[r] + ": rank " + std::to_string(r) + "'s snapshot: " + e.what());
    }
  }
  report = health::build_report(std::move(nodes), rules);
  report.unread.insert(report.unread.end(), broken.begin(), broken.end());
  health::join(report, evidence);
  return report;
}

}  // namespace commsweep

namespace commsweep {

RunHealth::RunHealth(World& world, double timeout_s, health::RuleBook rules, bool verbose)
    : world_(world), rules_(std::move(rules)), verbose_(verbose) {
  if (!health_around_runs()) return;
  watch_ = std::make_unique<HealthWatch>(world, health_sysfs_root(), timeout_s);
  watch_->before();
}

nlohmann::json RunHealth::finish(std::ostream& out, const std::vector<health::TrafficEvidence>& evidence) {
  nlohmann::json doc = finish_quietly(evidence);
  out << block_ << std::flush;
  return doc;
}

nlohmann::json RunHealth::finish_quietly(const std::vector<health::TrafficEvidence>& evidence) {
  if (!watch_) return nullptr;
  report_ = watch_->after(evidence, rules_);
  watch_.reset();  // NVML shut down before the command's last words
  if (world_.rank() != 0) return nullptr;
  block_ = health::render_block(report_, verbose_);
  return health::report_json(report_);
}

health::TrafficEvidence whole_job(const World& world, const std::string& what) {
  health::TrafficEvidence e;
  for (const auto& [host, ranks] : world.ranks_per_host()) e.hosts.push_back(host);
  e.what = what;
  return e;
}

}  // namespace commsweep
