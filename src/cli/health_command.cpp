#include "cli/health_command.hpp"

#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "cli/flags.hpp"
#include "cli/health_judge.hpp"
#include "run/health_gather.hpp"
#include "health/nvml_loader.hpp"
#include "health/tree.hpp"
#include "output/output_file.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/world.hpp"
#include "settings/program_options.hpp"
#include "settings/shared_flags.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {

struct HealthOptions {
  double duration_s = 0;
  std::string sysfs_root;
  std::string json, prometheus, thresholds, judge;
  bool gpus = true;
  bool verbose = false;
  bool help = false;
  double timeout_s = 60;
  settings::Origins given;  // which flags were given (--judge refuses those that read hardware)
};

// Any number: check() bounds the seconds with its own messages.
settings::Type health_seconds() {
  return settings::number(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
}

settings::Table<HealthOptions> make_health_table() {
  using settings::Given;
  using settings::Value;
  using O = HealthOptions;
  return {"health", {
      settings::entry_of<O>(settings::command_flag("duration", health_seconds(), "0",
                                        "seconds between a before and an after snapshot (0: one snapshot, its state "
                                        "judged)"),
                            [](O& o, const Value& v, const Given&) { o.duration_s = v.number; }),
      settings::entry_of<O>(settings::shared::sysfs_root(std::nullopt,
                                                         "read /sys under this folder (default: COMMSWEEP_SYSFS_ROOT, "
                                                         "else /); one that is not a folder is a usage error"),
                            settings::into(&O::sysfs_root)),
      settings::entry_of<O>(settings::command_flag("no-gpus", settings::presence(), std::nullopt,
                                        "do not load NVML (RDMA and PCIe only)"),
                            [](O& o, const Value& v, const Given&) { o.gpus = !v.present; }),
      settings::entry_of<O>(settings::shared::health_thresholds(
                                "judge with the limits of this YAML file (default: COMMSWEEP_HEALTH_THRESHOLDS, else "
                                "the built-in table, which results/health-thresholds.yaml holds; docs/health.md)"),
                            settings::into(&O::thresholds)),
      settings::entry_of<O>(settings::command_flag("judge", settings::text(), std::nullopt,
                                        "read no hardware: judge again the snapshots stored in this file (a results or "
                                        "pairs file's \"health\" member, or a --json file of commsweep health) with "
                                        "the rules in force; runs without mpirun"),
                            settings::into(&O::judge)),
      settings::entry_of<O>(settings::command_flag("verbose", settings::presence(), std::nullopt,
                                        "print what each node has (a line per port, PCIe link and GPU) and every "
                                        "finding, INFO included"),
                            settings::into(&O::verbose)),
      settings::entry_of<O>(settings::shared::json("write the snapshots and findings here (the \"health\" member of a "
                                                   "results file)"),
                            settings::into(&O::json)),
      settings::entry_of<O>(settings::shared::prometheus(),
                            settings::into(&O::prometheus)),
      settings::entry_of<O>(settings::shared::timeout("60", "seconds the gathering of the snapshots may take beyond "
                                                            "--duration"),
                            [](O& o, const Value& v, const Given&) { o.timeout_s = static_cast<double>(v.whole); }),
      settings::entry_of<O>(settings::shared::help(), settings::into(&O::help)),
  }, nullptr};
}

const settings::Table<HealthOptions>& health_settings() {
  static const settings::Table<HealthOptions> table = make_health_table();
  return table;
}

po::options_description health_flags() {
  return settings::options_of(health_settings(), "commsweep health [options]");
}

HealthOptions parse(int argc, char** argv) {
  const po::variables_map vm = parse_flags(argc, argv, 2, health_flags(), po::positional_options_description(),
                                           "health: ", " (commsweep health --help)");
  HealthOptions o;
  o.given = apply_command_flags(health_settings(), o, vm, "health: ", "health");
  return o;
}

// A usage Error for the flag that is wrong; bounded so a typo cannot park a job for a day.
void check(const HealthOptions& o) {
  if (!(o.duration_s >= 0 && o.duration_s <= 86400)) throw_usage("health: --duration must be 0 to 86400 seconds");
  if (!(o.timeout_s > 0 && o.timeout_s <= 86400)) throw_usage("health: --timeout must be above 0 and at most 86400 seconds");
}

// Where a health check that read nothing looked, for its message: "" for the machine's own /;
// " under --sysfs-root /x, which holds neither sys/ nor class/: ..." for a root given.
std::string looked_under(const std::string& root, const std::string& named) {
  if (root == "/") return "";
  std::string where = " under " + named + root;
  if (health::root_kind(root) == health::RootKind::Other)
    where += ", which holds neither sys/ nor class/: give the folder that holds sys/, or a sysfs itself such as /sys";
  return where;
}

int broadcast(World& world, int code, double timeout_s) {
  world.broadcast(&code, sizeof code, 0, Phase{"health verdict", Deadline::after(timeout_s)});
  return code;
}

}  // namespace

std::string health_help_text() {
  std::ostringstream out;
  out << health_flags() << "\n"
      << "Reads, on one rank per node, the hardware's own health state: every RDMA port (state, rate,\n"
         "/sys/class/infiniband/*/ports/*/counters and hw_counters), the PCIe link of every GPU and NIC\n"
         "(trained speed and width against the maximum, AER counts), and every GPU through NVML (XID\n"
         "events, NVLink state and CRC/replay/recovery counters, PCIe replay, volatile ECC, pending row\n"
         "remaps, clock event reasons, temperature). NVML is loaded at run time: without a driver the\n"
         "GPUs are not read and the report says so. With --duration, the counters' rises between the\n"
         "two snapshots are judged as rises per second against each counter's limit: one rule table,\n"
         "each limit from its source (NVLink CRC 100/s per link and replay/recovery any rise from\n"
         "NVIDIA DCGM, PCIe replay 8/min, the IB bit error rate, infiniband-diags' thresholds; FAIL: a\n"
         "link that went down or trained narrow, fatal AER, a critical XID, uncorrected ECC). A healthy\n"
         "node prints one line; findings one line per node and component class. docs/health.md has the\n"
         "table, the thresholds file and what each finding means. The measuring commands (sweeps, ep,\n"
         "pairs, suite) take the same snapshots before and after their run (COMMSWEEP_HEALTH=0 turns\n"
         "that off). --judge FILE judges stored snapshots again, so that new limits apply to old runs.\n\n"
         "--sysfs-root /sys (a sysfs itself: it holds class/) is read as /sys, and said.\n\n"
      << exit_codes_help({exit_code::kOk, exit_code::kUsage, exit_code::kHealthFail, exit_code::kOutputFailed})
      << "0: no FAIL (WARNs allowed). 2: bad flags or a bad file. 6: a FAIL, or a node where nothing\n"
         "could be read (no RDMA port, PCIe link or GPU: not checked, so no pass). 11: --json or\n"
         "--prometheus not written.\n"
      << (health::built_with_nvml() ? "" : "This build has no nvml.h: GPUs are not read (scripts/fetch-nvml-header.sh).\n");
  return out.str();
}

int run_health_judge(int argc, char** argv) {
  const HealthOptions o = parse(argc, argv);
  if (o.help) {
    std::cout << health_help_text();
    return exit_code::kOk;
  }
  // What reads the hardware has nothing to do with a file's snapshots.
  for (const char* flag : {"duration", "sysfs-root", "no-gpus", "timeout"})
    if (o.given.given(flag))
      throw_usage(std::string("health: --judge judges stored snapshots and reads no hardware: drop --") + flag);
  JudgeRequest request{o.judge, o.thresholds, o.json, o.prometheus, o.verbose};
  return judge_stored_health(request, std::cout);
}

int run_health_command(World& world, int argc, char** argv, char** /*envp*/) {
  const HealthOptions o = parse(argc, argv);
  if (o.help) {
    if (world.rank() == 0) std::cout << health_help_text();
    return exit_code::kOk;
  }
  check(o);
  // Rank 0 writes the files; every rank learns that it cannot, so that all stop together.
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--json", o.json}, {"--prometheus", o.prometheus}}) {
    const std::string why = world.rank() == 0 && !path.empty() ? output::cannot_write_reason(path) : "";
    if (world.sum(why.empty() ? 0 : 1, Phase{"checking " + flag, Deadline::after(o.timeout_s)}) > 0)
      throw_usage("health: " + flag + " " + path + ": cannot write there" + (why.empty() ? "" : ": " + why));
  }
  const health::RuleBook rules = health_rules(world, thresholds_file(o.thresholds), o.timeout_s);
  const std::string root = o.sysfs_root.empty() ? health_sysfs_root() : o.sysfs_root;
  const std::string named = o.sysfs_root.empty() ? "COMMSWEEP_SYSFS_ROOT=" : "--sysfs-root ";
  require_sysfs_root(world, root, "health: " + named + root, o.timeout_s, /*health=*/true);
  HealthWatch watch(world, root, o.timeout_s, o.gpus);
  if (o.duration_s > 0) {
    watch.before();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.duration_s));
  }
  const health::HealthReport report = watch.after({}, rules);
  int code = exit_code::kOk;
  if (world.rank() == 0) code = print_and_write(report, o.verbose, o.json, o.prometheus, std::cout, looked_under(root, named));
  return broadcast(world, code, o.timeout_s);
}

}  // namespace commsweep
