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
  virtual int field_value(unsigned gpu, unsigned field, std::int64_t* value) = 0;
};

}  // namespace commsweep::health
