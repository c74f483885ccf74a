#include "health/rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace commsweep::health {

std::string to_string(Severity s) {
  switch (s) {
    case Severity::Info: return "INFO";
    case Severity::Warn: return "WARN";
    case Severity::Fail: return "FAIL";
  }
  return "?";
}

std::string class_name(RuleClass c) {
  switch (c) {
    case RuleClass::RdmaPort: return "RDMA port counter";
    case RuleClass::RdmaHw: return "RDMA hw_counter";
    case RuleClass::Pcie: return "PCIe";
    case RuleClass::Gpu: return "GPU";
    case RuleClass::NvLink: return "NVLink";
  }
  return "?";
}

std::string group_name(RuleClass c) {
  switch (c) {
    case RuleClass::RdmaPort:
    case RuleClass::RdmaHw: return "RDMA";
    case RuleClass::Pcie: return "PCIe";
    case RuleClass::Gpu: return "GPU";
    case RuleClass::NvLink: return "NVLink";
  }
  return "?";
}

std::string unit_of(RuleClass c) {
  switch (c) {
    case RuleClass::RdmaPort:
    case RuleClass::RdmaHw: return "per port";
    case RuleClass::Pcie: return "per device";
    case RuleClass::Gpu: return "per GPU";
    case RuleClass::NvLink: return "per link";
  }
  return "?";
}

namespace {

// Short names of the sources, as a finding prints them; the comments at each row say where.
//   DCGM      NVIDIA DCGM 4.6, modules/health/DcgmHealthWatch.cpp (the health watches) and
//             common/DcgmGPUHardwareLimits.h (the limits they use).
//   DCGM 3.3  the same, up to DCGM 3.3.3: DCGM_LIMIT_MAX_PCIREPLAY_RATE 8, "8 replays per
//             minute is the maximum recommended by RM" (later releases derive a larger limit
//             from a 10^-12 bit error rate per lane: 31/min for Gen5 x16).
//   IBTA      the InfiniBand Architecture Specification: PortCounters (vol. 1, 16.1.3.5) and
//             the 10^-12 bit error rate a link must meet (vol. 2, the physical layer).
//   ibqueryerrors  infiniband-diags (rdma-core): reports every error counter above its
//             threshold, 0 by default; etc/error_thresholds suggests 10 for the link's own
//             errors and 100 for discards and drops; -c suppresses PortRcvSwitchRelayErrors,
//             "the only common side effect" counter.
//   GCM       Meta's GPU cluster monitoring, check_ib_counters: link_downed is critical on any
//             count.
//   NHC       LBNL Node Health Check, check_hw_ib: a port must be Active (LinkUp) at its rate.
//   PCIe      the PCI Express Base Specification's AER classes: a fatal error leaves the link
//             unreliable, a non-fatal one lost a transaction, a correctable one cost a replay.
//   commsweep a limit no vendor publishes, set here; the comment says why.
//   NVIDIA    the GPU model's own NVLinks as NVIDIA publishes them (health/nvlink_mode.cpp
//             cites each model's datasheet or whitepaper).
//   mlx5      the counters' meaning: the kernel's "IB/mlx5: Add port protocol stats" commit
//             (0ad17a8f7fa0) and NVIDIA's mlx5 counters documentation.

Rule rise(const char* name, RuleClass c, Severity s, double limit, const char* source, bool per_minute = false) {
  Rule r;
  r.name = name;
  r.cls = c;
  r.kind = RuleKind::Rise;
  r.severity = s;
  r.limit = limit;
  r.per_minute = per_minute;
  r.source = source;
  return r;
}

Rule state(const char* name, RuleClass c, Severity s, const char* source) {
  Rule r;
  r.name = name;
  r.cls = c;
  r.kind = RuleKind::State;
  r.severity = s;
  r.source = source;
  return r;
}

constexpr Severity kFail = Severity::Fail, kWarn = Severity::Warn, kInfo = Severity::Info;
constexpr RuleClass kPort = RuleClass::RdmaPort, kHw = RuleClass::RdmaHw, kPcie = RuleClass::Pcie,
                    kGpu = RuleClass::Gpu, kNvLink = RuleClass::NvLink;

// 10^-12 bit errors (IBTA) at 4X EDR, 4 x 25.78125 Gb/s: 0.1 errors per second. Faster links
// (HDR, NDR) allow more at the same rate; 0.1/s is the strict end.
constexpr double kIbBerPerSecond = 0.1;
// etc/error_thresholds: discards and drops 100 where the link's own errors are 10: ten times.
constexpr double kDiscardsPerSecond = 10 * kIbBerPerSecond;
// A retransmission or drop a second on one port is far above a lossless fabric's (RoCE with
// PFC, or IB) and well below what costs bandwidth: commsweep's, no vendor limit exists.
constexpr double kRetransmitsPerSecond = 1;
// RM (the driver) via DCGM: NVLink CRC errors matter from 100 a second per link.
constexpr double kNvLinkCrcPerSecond = 100;
// DCGM 3.3: 8 PCIe replays a minute.
constexpr double kPcieReplaysPerSecond = 8.0 / 60;

std::vector<Rule> build_table() {
  return {
      // ---- RDMA port counters (counters/: the IB PortCounters), per port ----
      rise("link_downed", kPort, kFail, 0, "IBTA, GCM"),  // the link failed to recover and went down: a flap
      rise("link_error_recovery", kPort, kWarn, 0, "ibqueryerrors"),  // retrained: default threshold 0
      rise("symbol_error", kPort, kWarn, kIbBerPerSecond, "IBTA BER"),
      rise("port_rcv_errors", kPort, kWarn, kIbBerPerSecond, "IBTA BER"),  // malformed packets received
      rise("port_rcv_remote_physical_errors", kPort, kWarn, kIbBerPerSecond, "IBTA BER"),  // marked bad upstream
      rise("port_rcv_switch_relay_errors", kPort, kInfo, 0, "ibqueryerrors -c"),  // a common side effect
      rise("port_xmit_discards", kPort, kWarn, kDiscardsPerSecond, "ibqueryerrors"),
      rise("port_xmit_constraint_errors", kPort, kWarn, 0, "ibqueryerrors"),  // partition enforcement
      rise("port_rcv_constraint_errors", kPort, kWarn, 0, "ibqueryerrors"),
      rise("local_link_integrity_errors", kPort, kWarn, 0, "ibqueryerrors"),
      rise("excessive_buffer_overrun_errors", kPort, kWarn, 0, "ibqueryerrors"),  // credits broken
      rise("VL15_dropped", kPort, kWarn, kDiscardsPerSecond, "ibqueryerrors"),  // management packets
      rise("port_xmit_wait", kPort, kInfo, 0, "IBTA"),  // ticks with data and no credit: congestion
      // ---- RDMA hw_counters (the driver's, mlx5), per port ----
      rise("out_of_sequence", kHw, kWarn, kRetransmitsPerSecond, "commsweep"),  // packets lost on the way
      rise("packet_seq_err", kHw, kWarn, kRetransmitsPerSecond, "commsweep"),   // NAKs: retransmissions
      rise("implied_nak_seq_err", kHw, kWarn, kRetransmitsPerSecond, "commsweep"),
      rise("duplicate_request", kHw, kWarn, kRetransmitsPerSecond, "commsweep"),
      rise("out_of_buffer", kHw, kWarn, kRetransmitsPerSecond, "commsweep"),  // drops: no receive WQE
      rise("local_ack_timeout_err", kHw, kWarn, 0, "mlx5"),  // an ACK never came: a lost packet's timeout
      rise("rnr_nak_retry_err", kHw, kWarn, 0, "mlx5"),      // the receiver-not-ready retries ran out
      rise("req_cqe_error", kHw, kWarn, 0, "mlx5"),          // completions in error (flushes counted apart)
      rise("resp_cqe_error", kHw, kWarn, 0, "mlx5"),
      rise("rx_icrc_encapsulated", kHw, kWarn, 0, "mlx5"),   // RoCE packets with a bad ICRC
      rise("np_cnp_sent", kHw, kInfo, 0, "mlx5"),            // congestion control at work
      rise("rp_cnp_handled", kHw, kInfo, 0, "mlx5"),
      rise("np_ecn_marked_roce_packets", kHw, kInfo, 0, "mlx5"),
      rise("rp_cnp_ignored", kHw, kInfo, 0, "mlx5"),
      // ---- PCIe AER statistics (aer_dev_*), per device ----
      rise("aer_fatal", kPcie, kFail, 0, "PCIe"),
      rise("aer_nonfatal", kPcie, kWarn, 0, "PCIe"),
      rise("aer_correctable", kPcie, kWarn, kPcieReplaysPerSecond, "DCGM 3.3", true),  // each one a replay
      // ---- GPU (NVML), per GPU ----
      rise("pcie_replay", kGpu, kWarn, kPcieReplaysPerSecond, "DCGM 3.3", true),
      rise("ecc_uncorrected", kGpu, kFail, 0, "DCGM"),  // MonitorMemVolatileDbes: any volatile DBE fails
      rise("ecc_corrected", kGpu, kInfo, 0, "DCGM"),    // DCGM judges no corrected error (remaps cover it)
      // ---- NVLink (NVML's DL error counters), per link: DCGM's MonitorNVLink4Fields ----
      rise("nvlink_crc_flit", kNvLink, kWarn, kNvLinkCrcPerSecond, "DCGM"),
      rise("nvlink_crc_data", kNvLink, kWarn, kNvLinkCrcPerSecond, "DCGM"),
      rise("nvlink_replay", kNvLink, kFail, 0, "DCGM"),    // "Replay and recovery errors are failures"
      rise("nvlink_recovery", kNvLink, kFail, 0, "DCGM"),
      // ---- states ----
      state("port_left_active", kPort, kFail, "IBTA"),  // ACTIVE before the run, not after: the link dropped
      state("port_state_changed", kPort, kInfo, "IBTA"),  // any other change (a port that came up)
      state("port_not_active", kPort, kWarn, "NHC"),    // one snapshot: a port not ACTIVE
      state("port_width", kPort, kFail, "IBTA"),        // fewer lanes than the ports of its NIC model
      state("port_speed", kPort, kWarn, "NHC"),         // slower than the ports of its NIC model
      state("port_unmatched", kPort, kInfo, "commsweep"),  // no port of its NIC model to compare with
      state("port_gone", kPort, kFail, "commsweep"),    // vanished between the snapshots
      state("counter_saturated", kPort, kWarn, "IBTA"),  // PortCounters stop at their ceiling
      state("pcie_width", kPcie, kFail, "PCIe"),         // trained narrower than its maximum
      state("pcie_speed", kPcie, kWarn, "PCIe"),         // a NIC below its maximum speed (GPUs idle low)
      state("aer_fatal_since_boot", kPcie, kWarn, "PCIe"),
      state("pcie_gone", kPcie, kFail, "commsweep"),
      state("xid_critical", kGpu, kFail, "DCGM"),  // DCGM's "devastating" XIDs (critical_xids below)
      state("xid", kGpu, kWarn, "DCGM"),           // any other XID (94, a contained ECC error, included)
      state("clock_event_reasons", kGpu, kWarn, "DCGM"),  // thermal or power clock events
      state("remap_failure", kGpu, kFail, "DCGM"),
      state("remap_pending", kGpu, kWarn, "DCGM"),
      state("retired_pages_pending", kGpu, kWarn, "DCGM"),
      state("gpu_gone", kGpu, kFail, "DCGM"),          // fallen off the bus
      state("nvlink_down", kNvLink, kFail, "DCGM"),    // MonitorNVLinkStatus: a link down fails
      state("nvlink_inactive", kNvLink, kWarn, "DCGM"),  // one snapshot: inactive beside active links
      // Trained down against the GPU model's own (fewer active links, a lower version or speed;
      // a bridged board's fewer links are by design): said once per GPU, in place of its
      // inactive links' nvlink_inactive.
      state("nvlink_reduced", kNvLink, kWarn, "NVIDIA"),
      state("nvlink_model_unknown", kNvLink, kInfo, "commsweep"),  // no table row: said once per model
  };
}

}  // namespace

const std::vector<Rule>& default_rules() {
  static const std::vector<Rule> table = build_table();
  return table;
}

const std::vector<std::uint64_t>& critical_xids() {
  // DCGM's BuildXidMappings, m_devastatingXids at FAIL: 48 double-bit ECC, 74 NVLink error, 79
  // fallen off the bus, 95 uncontained ECC, 119 / 120 GSP RPC timeout / GSP error, 140 ECC
  // unrecovered. (94, a contained ECC error, is a WARN there.)
  static const std::vector<std::uint64_t> xids = {48, 74, 79, 95, 119, 120, 140};
  return xids;
}

bool critical_xid(std::uint64_t xid) {
  const auto& xs = critical_xids();
  return std::find(xs.begin(), xs.end(), xid) != xs.end();
}

std::string rate_text(double per_second, bool per_minute) {
  const double v = per_minute ? per_second * 60 : per_second;
  char text[32];
  if (v >= 10 || v == std::floor(v)) std::snprintf(text, sizeof text, "%.0f", v);
  else std::snprintf(text, sizeof text, "%.2g", v);
  return std::string(text) + (per_minute ? "/min" : "/s");
}

std::string Rule::limit_text() const {
  if (kind == RuleKind::State) return "";
  if (severity == Severity::Fail) return "any rise fails";
  if (severity == Severity::Info) return "information only";
  if (limit <= 0) return "any rise warns";
  return "limit " + rate_text(limit, per_minute);
}

std::string Rule::said() const {
  const std::string from = origin.empty() ? source : "set in " + origin;
  const std::string limit = limit_text();
  return limit.empty() ? from : limit + ", " + from;
}

Severity Rule::judge_rise(std::uint64_t delta, double seconds) const {
  if (delta == 0 || severity != Severity::Warn) return delta == 0 ? Severity::Info : severity;
  if (seconds <= 0) return Severity::Warn;
  return static_cast<double>(delta) / seconds > limit ? Severity::Warn : Severity::Info;
}

RuleBook::RuleBook() : rows_(default_rules()) {}

const Rule* RuleBook::find(const std::string& name) const {
  for (const auto& r : rows_)
    if (r.name == name) return &r;
  return nullptr;
}

const Rule& RuleBook::at(const std::string& name) const {
  if (const Rule* r = find(name)) return *r;
  throw std::out_of_range("health rule \"" + name + "\" is not in the table (src/health/rules.cpp)");
}

}  // namespace commsweep::health
