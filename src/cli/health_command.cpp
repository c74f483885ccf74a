#include "cli/health_command.hpp"

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>
#include <utility>

#include "cli/flags.hpp"
#include "run/health_gather.hpp"
#include "health/nvml_loader.hpp"
#include "output/output_file.hpp"
#include "report/json.hpp"
#include "core/error.hpp"
#include "runtime/world.hpp"

namespace commsweep {

namespace po = boost::program_options;

namespace {

struct HealthOptions {
  double duration_s = 0;
  std::string sysfs_root;
  std::string json, prometheus;
  bool gpus = true;
  double timeout_s = 60;
};

po::options_description health_flags(HealthOptions& o) {
  po::options_description d("commsweep health [options]");
  d.add_options()
      ("duration", po::value(&o.duration_s)->default_value(0), "seconds between a before and an after snapshot (0: one snapshot, its state judged)")
      ("sysfs-root", po::value(&o.sysfs_root), "read /sys under this folder (default: COMMSWEEP_SYSFS_ROOT, else /)")
      ("no-gpus", "do not load NVML (RDMA and PCIe only)")
      ("json", po::value(&o.json), "write the snapshots and findings here (the \"health\" member of a results file)")
      ("prometheus", po::value(&o.prometheus), "write Prometheus text exposition here (node-exporter textfile collector: *.prom)")
      ("timeout,T", po::value(&o.timeout_s)->default_value(60), "seconds the gathering of the snapshots may take beyond --duration")
      ("help,h", "show this help");
  return d;
}

// A usage Error for the flag that is wrong; bounded so a typo cannot park a job for a day.
void check(const HealthOptions& o) {
  if (!(o.duration_s >= 0 && o.duration_s <= 86400)) throw_usage("health: --duration must be 0 to 86400 seconds");
  if (!(o.timeout_s > 0 && o.timeout_s <= 86400)) throw_usage("health: --timeout must be above 0 and at most 86400 seconds");
}

int broadcast(World& world, int code, double timeout_s) {
  world.broadcast(&code, sizeof code, 0, Phase{"health verdict", Deadline::after(timeout_s)});
  return code;
}

}  // namespace

std::string health_help_text() {
  HealthOptions o;
  std::ostringstream out;
  out << health_flags(o) << "\n"
      << "Reads, on one rank per node, the hardware's own health state: every RDMA port (state, rate,\n"
         "/sys/class/infiniband/*/ports/*/counters and hw_counters), the PCIe link of every GPU and NIC\n"
         "(trained speed and width against the maximum, AER counts), and every GPU through NVML (XID\n"
         "events, NVLink state and CRC/replay/recovery counters, PCIe replay, volatile ECC, pending row\n"
         "remaps, clock event reasons, temperature). NVML is loaded at run time: without a driver the\n"
         "GPUs are not read and the report says so. With --duration, the counters' rises between the\n"
         "two snapshots are judged (FAIL: a link that went down or trained narrow, fatal AER, XID\n"
         "79/74/48/94/95, an NVLink down, uncorrected ECC; WARN: error counters rising faster than\n"
         "their rate, saturated counters, throttling, pending remaps). docs/fabric.md says what each\n"
         "finding means and what to do. The measuring commands (sweeps, ep, pairs, suite) take the same\n"
         "snapshots before and after their run (COMMSWEEP_HEALTH=0 turns that off).\n\n"
         "Exit codes: 0 no FAIL (WARNs allowed), 2 bad flags, 6 a FAIL.\n"
      << (health::built_with_nvml() ? "" : "This build has no nvml.h: GPUs are not read (scripts/fetch-nvml-header.sh).\n");
  return out.str();
}

int run_health_command(World& world, int argc, char** argv, char** /*envp*/) {
  HealthOptions o;
  const auto flags = health_flags(o);
  const po::variables_map vm =
      parse_flags(argc, argv, 2, flags, po::positional_options_description(), "health: ", " (commsweep health --help)");
  if (vm.count("help")) {
    if (world.rank() == 0) std::cout << health_help_text();
    return exit_code::kOk;
  }
  o.gpus = !vm.count("no-gpus");
  check(o);
  // Rank 0 writes the files; every rank learns that it cannot, so that all stop together.
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--json", o.json}, {"--prometheus", o.prometheus}}) {
    const std::string why = world.rank() == 0 && !path.empty() ? output::cannot_write_reason(path) : "";
    if (world.sum(why.empty() ? 0 : 1, Phase{"checking " + flag, Deadline::after(o.timeout_s)}) > 0)
      throw_usage("health: " + flag + " " + path + ": cannot write there" + (why.empty() ? "" : ": " + why));
  }
  HealthWatch watch(world, o.sysfs_root.empty() ? health_sysfs_root() : o.sysfs_root, o.timeout_s, o.gpus);
  if (o.duration_s > 0) {
    watch.before();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.duration_s));
  }
  const health::HealthReport report = watch.after();
  int code = exit_code::kOk;
  if (world.rank() == 0) {
    std::cout << health::render_inventory(report) << health::render_block(report) << std::flush;
    if (health::worst(report.findings) == health::Severity::Fail) code = exit_code::kPreflightFailed;
    try {
      if (!o.json.empty()) output::write_output_file(o.json, health::report_json(report).dump(2) + "\n");
      if (!o.prometheus.empty()) output::write_output_file(o.prometheus, health::render_prometheus(report));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "commsweep health: %s\n", e.what());
      code = exit_code::kUsage;
    }
  }
  return broadcast(world, code, o.timeout_s);
}

}  // namespace commsweep
