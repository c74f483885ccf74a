// The NVML calls commsweep makes, behind an interface: the real one (nvml_loader.hpp) loads
// libnvidia-ml.so.1 at run time, so that a machine without a GPU driver still runs; tests use a
// recorded double (tests/unit/health_nvml_double.hpp). Each call returns NVML's return code
// (0 is NVML_SUCCESS) and names the GPU by its NVML index.
#pragma once

#include <cstdint>
#include <string>

namespace commsweep::health {

// The nvmlReturn_t values the reader tells apart (nvml.h).
namespace nvml_rc {
inline constexpr int kSuccess = 0;
inline constexpr int kInvalidArgument = 2;
inline constexpr int kNotSupported = 3;
inline constexpr int kNoPermission = 4;
inline constexpr int kTimeout = 10;
inline constexpr int kFunctionNotFound = 13;  // the loaded driver lacks the symbol
inline constexpr int kUnknown = 999;
}  // namespace nvml_rc

// The NVML_FI_DEV_* field ids read through field_value (nvml.h).
namespace nvml_field {
inline constexpr unsigned kNvLinkSpeedMbpsCommon = 90;  // the common speed of the active links, MB/s
inline constexpr unsigned kNvLinkLinkCount = 91;        // the NVLinks the device has
}  // namespace nvml_field

// NVML_NVLINK_ERROR_DL_*.
enum class NvLinkCounter { Replay = 0, Recovery = 1, CrcFlit = 2, CrcData = 3 };

// NVML_PERF_POLICY_*: what held the clocks down (nvmlDeviceGetViolationStatus).
enum class PerfPolicy { Power = 0, Thermal = 1, SyncBoost = 2, BoardLimit = 3 };

class NvmlApi {
 public:
  virtual ~NvmlApi() = default;
  // Empty when NVML is loaded and initialised; otherwise why not (printed as is).
  virtual std::string unavailable() const = 0;
  virtual std::string error_string(int rc) const = 0;
  virtual int device_count(unsigned* count) = 0;
  virtual int name(unsigned gpu, std::string* name) = 0;
  virtual int pci_bus_id(unsigned gpu, std::string* id) = 0;
  virtual int temperature(unsigned gpu, unsigned* celsius) = 0;
  virtual int clock_event_reasons(unsigned gpu, std::uint64_t* reasons) = 0;
  virtual int pcie_replay_counter(unsigned gpu, unsigned* count) = 0;
  virtual int pcie_link(unsigned gpu, unsigned* gen, unsigned* max_gen, unsigned* width, unsigned* max_width) = 0;
  // Volatile (since the driver loaded) total ECC errors, corrected or uncorrected.
  virtual int ecc_volatile(unsigned gpu, bool uncorrected, std::uint64_t* count) = 0;
  virtual int retired_pages_pending(unsigned gpu, bool* pending) = 0;
  virtual int remapped_rows(unsigned gpu, bool* pending, bool* failure) = 0;
  // kInvalidArgument for a link the GPU does not have: the end of its links.
  virtual int nvlink_state(unsigned gpu, unsigned link, bool* active) = 0;
  virtual int nvlink_error_counter(unsigned gpu, unsigned link, NvLinkCounter counter, std::uint64_t* value) = 0;
  // nvmlNvlinkVersion_t of the link (the enum: 6 is NVLink 4.0; nvlink/expectation.hpp).
  virtual int nvlink_version(unsigned gpu, unsigned link, unsigned* version) = 0;
  // XID events: register every GPU once, then wait up to TIMEOUT_MS for the next one
  // (kTimeout when none came).
  virtual int register_xid_events() = 0;
  virtual int wait_xid_event(unsigned timeout_ms, unsigned* gpu, std::uint64_t* xid) = 0;

  // One device-scoped field of nvmlDeviceGetFieldValues (FIELD: nvml_field::*), as an integer;
  // the field's own nvmlReturn when NVML answered the call but not the field.
  virtual int field_value(unsigned gpu, unsigned field, std::int64_t* value) {
    (void)field;
    return unsupported(gpu, value);
  }

  // The GPU's state at one end of a measured window (run/gpu_window_observer.hpp). Defaults
  // answer kNotSupported, so that a double that does not plant them needs no change.
  // nvmlDeviceGetClockInfo(NVML_CLOCK_SM, NVML_CLOCK_MEM), in MHz.
  virtual int clocks(unsigned gpu, unsigned* sm_mhz, unsigned* mem_mhz) { return unsupported(gpu, sm_mhz, mem_mhz); }
  // nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM), in MHz.
  virtual int max_sm_clock(unsigned gpu, unsigned* mhz) { return unsupported(gpu, mhz); }
  // nvmlDeviceGetPowerUsage and nvmlDeviceGetEnforcedPowerLimit, in mW.
  virtual int power(unsigned gpu, unsigned* usage_mw, unsigned* limit_mw) { return unsupported(gpu, usage_mw, limit_mw); }
  // nvmlDeviceGetTotalEnergyConsumption: mJ since the driver loaded.
  virtual int total_energy(unsigned gpu, std::uint64_t* mj) { return unsupported(gpu, mj); }
  // nvmlDeviceGetViolationStatus: the time (ns) POLICY has held the clocks down since the driver
  // loaded, and NVML's CPU timestamp (us) of the reading.
  virtual int violation_time(unsigned gpu, PerfPolicy policy, std::uint64_t* reference_us, std::uint64_t* ns) {
    (void)policy;
    return unsupported(gpu, reference_us, ns);
  }

 private:
  template <typename... T>
  static int unsupported(T...) { return nvml_rc::kNotSupported; }
};

// An NvmlApi that answers every device call Not Supported: the base of those that answer only
// some (the build without nvml.h answers none; a recording, health/nvml_recording.hpp, what it
// replays).
class UnsupportedNvml : public NvmlApi {
 public:
  int device_count(unsigned* count) override {
    *count = 0;
    return nvml_rc::kNotSupported;
  }
  int name(unsigned, std::string*) override { return nvml_rc::kNotSupported; }
  int pci_bus_id(unsigned, std::string*) override { return nvml_rc::kNotSupported; }
  int temperature(unsigned, unsigned*) override { return nvml_rc::kNotSupported; }
  int clock_event_reasons(unsigned, std::uint64_t*) override { return nvml_rc::kNotSupported; }
  int pcie_replay_counter(unsigned, unsigned*) override { return nvml_rc::kNotSupported; }
  int pcie_link(unsigned, unsigned*, unsigned*, unsigned*, unsigned*) override { return nvml_rc::kNotSupported; }
  int ecc_volatile(unsigned, bool, std::uint64_t*) override { return nvml_rc::kNotSupported; }
  int retired_pages_pending(unsigned, bool*) override { return nvml_rc::kNotSupported; }
  int remapped_rows(unsigned, bool*, bool*) override { return nvml_rc::kNotSupported; }
  int nvlink_state(unsigned, unsigned, bool*) override { return nvml_rc::kNotSupported; }
  int nvlink_error_counter(unsigned, unsigned, NvLinkCounter, std::uint64_t*) override { return nvml_rc::kNotSupported; }
  int nvlink_version(unsigned, unsigned, unsigned*) override { return nvml_rc::kNotSupported; }
  int register_xid_events() override { return nvml_rc::kNotSupported; }
  int wait_xid_event(unsigned, unsigned*, std::uint64_t*) override { return nvml_rc::kNotSupported; }
};

}  // namespace commsweep::health
