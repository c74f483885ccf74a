#include "health/nvml_loader.hpp"

#include <dlfcn.h>

#include <string>
#include <vector>

#if COMMSWEEP_HAVE_NVML_H
#include <nvml.h>
#endif

namespace commsweep::health {

#if COMMSWEEP_HAVE_NVML_H

bool built_with_nvml() { return true; }

namespace {

// nvml.h's signatures, typed here so that the functions are called through pointers looked up
// by their versioned names (the header's macros map nvmlInit to nvmlInit_v2 and so on).
using InitFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using CountFn = nvmlReturn_t (*)(unsigned*);
using HandleFn = nvmlReturn_t (*)(unsigned, nvmlDevice_t*);
using NameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned);
using PciFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using TempFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned*);
using U64Fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
using UFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);
using EccFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t, unsigned long long*);
using PendingFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlEnableState_t*);
using RemapFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*);
using LinkStateFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlEnableState_t*);
using LinkVersionFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned, unsigned*);
using LinkErrFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlNvLinkErrorCounter_t, unsigned long long*);
using SetCreateFn = nvmlReturn_t (*)(nvmlEventSet_t*);
using SetFreeFn = nvmlReturn_t (*)(nvmlEventSet_t);
using RegisterFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
using WaitFn = nvmlReturn_t (*)(nvmlEventSet_t, nvmlEventData_t*, unsigned);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlClockType_t, unsigned*);
using ViolationFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPerfPolicyType_t, nvmlViolationTime_t*);
using FieldsFn = nvmlReturn_t (*)(nvmlDevice_t, int, nvmlFieldValue_t*);

class DlNvml final : public NvmlApi {
 public:
  DlNvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      const char* why = dlerror();
      unavailable_ = std::string("NVML not loaded (no GPU driver here?): ") + (why ? why : "libnvidia-ml.so.1");
      return;
    }
    error_string_ = sym<ErrorStringFn>("nvmlErrorString");
    const auto init = sym<InitFn>("nvmlInit_v2");
    if (!init) {
      unavailable_ = "NVML loaded but has no nvmlInit_v2";
      return;
    }
    const nvmlReturn_t rc = init();
    if (rc != NVML_SUCCESS) {
      unavailable_ = "NVML did not start: " + error_string(rc);
      return;
    }
    initialised_ = true;
    unsigned count = 0;
    if (const auto f = sym<CountFn>("nvmlDeviceGetCount_v2"); f && f(&count) == NVML_SUCCESS) {
      const auto handle = sym<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
      for (unsigned i = 0; handle && i < count; ++i) {
        nvmlDevice_t d{};
        if (handle(i, &d) == NVML_SUCCESS) devices_.push_back(d);
      }
    }
  }
  ~DlNvml() override {
    if (events_)
      if (const auto f = sym<SetFreeFn>("nvmlEventSetFree")) f(events_);
    if (initialised_)
      if (const auto f = sym<InitFn>("nvmlShutdown")) f();
    if (lib_) dlclose(lib_);
  }
  DlNvml(const DlNvml&) = delete;
  DlNvml& operator=(const DlNvml&) = delete;

  std::string unavailable() const override { return unavailable_; }
  std::string error_string(int rc) const override {
    if (rc == nvml_rc::kFunctionNotFound) return "not in this driver's NVML";
    const char* s = error_string_ ? error_string_(static_cast<nvmlReturn_t>(rc)) : nullptr;
    return s ? s : "NVML error " + std::to_string(rc);
  }
  int device_count(unsigned* count) override {
    *count = static_cast<unsigned>(devices_.size());
    return NVML_SUCCESS;
  }
  int name(unsigned gpu, std::string* out) override {
    char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    const int rc = call<NameFn>("nvmlDeviceGetName", gpu, buf, static_cast<unsigned>(sizeof buf));
    if (rc == NVML_SUCCESS) *out = buf;
    return rc;
  }
  int pci_bus_id(unsigned gpu, std::string* out) override {
    nvmlPciInfo_t info{};
    const int rc = call<PciFn>("nvmlDeviceGetPciInfo_v3", gpu, &info);
    if (rc == NVML_SUCCESS) *out = info.busId;
    return rc;
  }
  int temperature(unsigned gpu, unsigned* c) override {
    return call<TempFn>("nvmlDeviceGetTemperature", gpu, NVML_TEMPERATURE_GPU, c);
  }
  int clock_event_reasons(unsigned gpu, std::uint64_t* reasons) override {
    unsigned long long v = 0;
    int rc = call<U64Fn>("nvmlDeviceGetCurrentClocksEventReasons", gpu, &v);
    // Drivers before R535 name it "throttle reasons"; the bits are the same.
    if (rc == nvml_rc::kFunctionNotFound) rc = call<U64Fn>("nvmlDeviceGetCurrentClocksThrottleReasons", gpu, &v);
    *reasons = v;
    return rc;
  }
  int pcie_replay_counter(unsigned gpu, unsigned* count) override {
    return call<UFn>("nvmlDeviceGetPcieReplayCounter", gpu, count);
  }
  int pcie_link(unsigned gpu, unsigned* gen, unsigned* max_gen, unsigned* width, unsigned* max_width) override {
    int rc = call<UFn>("nvmlDeviceGetCurrPcieLinkGeneration", gpu, gen);
    if (rc == NVML_SUCCESS) rc = call<UFn>("nvmlDeviceGetMaxPcieLinkGeneration", gpu, max_gen);
    if (rc == NVML_SUCCESS) rc = call<UFn>("nvmlDeviceGetCurrPcieLinkWidth", gpu, width);
    if (rc == NVML_SUCCESS) rc = call<UFn>("nvmlDeviceGetMaxPcieLinkWidth", gpu, max_width);
    return rc;
  }
  int ecc_volatile(unsigned gpu, bool uncorrected, std::uint64_t* count) override {
    unsigned long long v = 0;
    const int rc = call<EccFn>("nvmlDeviceGetTotalEccErrors", gpu,
                               uncorrected ? NVML_MEMORY_ERROR_TYPE_UNCORRECTED : NVML_MEMORY_ERROR_TYPE_CORRECTED,
                               NVML_VOLATILE_ECC, &v);
    *count = v;
    return rc;
  }
  int retired_pages_pending(unsigned gpu, bool* pending) override {
    nvmlEnableState_t s = NVML_FEATURE_DISABLED;
    const int rc = call<PendingFn>("nvmlDeviceGetRetiredPagesPendingStatus", gpu, &s);
    *pending = s == NVML_FEATURE_ENABLED;
    return rc;
  }
  int remapped_rows(unsigned gpu, bool* pending, bool* failure) override {
    unsigned corr = 0, unc = 0, p = 0, f = 0;
    const int rc = call<RemapFn>("nvmlDeviceGetRemappedRows", gpu, &corr, &unc, &p, &f);
    *pending = p != 0;
    *failure = f != 0;
    return rc;
  }
  int nvlink_state(unsigned gpu, unsigned link, bool* active) override {
    nvmlEnableState_t s = NVML_FEATURE_DISABLED;
    const int rc = call<LinkStateFn>("nvmlDeviceGetNvLinkState", gpu, link, &s);
    *active = s == NVML_FEATURE_ENABLED;
    return rc;
  }
  int nvlink_error_counter(unsigned gpu, unsigned link, NvLinkCounter counter, std::uint64_t* value) override {
    unsigned long long v = 0;
    const int rc = call<LinkErrFn>("nvmlDeviceGetNvLinkErrorCounter", gpu, link,
                                   static_cast<nvmlNvLinkErrorCounter_t>(counter), &v);
    *value = v;
    return rc;
  }
  int nvlink_version(unsigned gpu, unsigned link, unsigned* version) override {
    return call<LinkVersionFn>("nvmlDeviceGetNvLinkVersion", gpu, link, version);
  }
  int register_xid_events() override {
    const auto create = sym<SetCreateFn>("nvmlEventSetCreate");
    const auto reg = sym<RegisterFn>("nvmlDeviceRegisterEvents");
    if (!create || !reg) return nvml_rc::kFunctionNotFound;
    if (!events_) {
      const nvmlReturn_t rc = create(&events_);
      if (rc != NVML_SUCCESS) return rc;
    }
    int last = NVML_SUCCESS;
    for (auto d : devices_) {
      const nvmlReturn_t rc = reg(d, nvmlEventTypeXidCriticalError, events_);
      if (rc != NVML_SUCCESS) last = rc;
    }
    return last;
  }
  int wait_xid_event(unsigned timeout_ms, unsigned* gpu, std::uint64_t* xid) override {
    const auto wait = sym<WaitFn>("nvmlEventSetWait_v2");
    if (!wait) return nvml_rc::kFunctionNotFound;
    if (!events_) return NVML_ERROR_UNINITIALIZED;
    nvmlEventData_t data{};
    const nvmlReturn_t rc = wait(events_, &data, timeout_ms);
    if (rc != NVML_SUCCESS) return rc;
    *xid = data.eventData;
    *gpu = 0;
    for (unsigned i = 0; i < devices_.size(); ++i)
      if (devices_[i] == data.device) *gpu = i;
    return rc;
  }
  int clocks(unsigned gpu, unsigned* sm_mhz, unsigned* mem_mhz) override {
    int rc = call<ClockFn>("nvmlDeviceGetClockInfo", gpu, NVML_CLOCK_SM, sm_mhz);
    if (rc == NVML_SUCCESS) rc = call<ClockFn>("nvmlDeviceGetClockInfo", gpu, NVML_CLOCK_MEM, mem_mhz);
    return rc;
  }
  int max_sm_clock(unsigned gpu, unsigned* mhz) override {
    return call<ClockFn>("nvmlDeviceGetMaxClockInfo", gpu, NVML_CLOCK_SM, mhz);
  }
  int power(unsigned gpu, unsigned* usage_mw, unsigned* limit_mw) override {
    int rc = call<UFn>("nvmlDeviceGetPowerUsage", gpu, usage_mw);
    if (rc == NVML_SUCCESS) rc = call<UFn>("nvmlDeviceGetEnforcedPowerLimit", gpu, limit_mw);
    return rc;
  }
  int total_energy(unsigned gpu, std::uint64_t* mj) override {
    unsigned long long v = 0;
    const int rc = call<U64Fn>("nvmlDeviceGetTotalEnergyConsumption", gpu, &v);
    *mj = v;
    return rc;
  }
  // Deprecated in nvml.h 13.0 for field values, and still answered by the R580 driver.
  int violation_time(unsigned gpu, PerfPolicy policy, std::uint64_t* reference_us, std::uint64_t* ns) override {
    nvmlViolationTime_t v{};
    const int rc = call<ViolationFn>("nvmlDeviceGetViolationStatus", gpu, static_cast<nvmlPerfPolicyType_t>(policy), &v);
    *reference_us = v.referenceTime;
    *ns = v.violationTime;
    return rc;
  }
  int field_value(unsigned gpu, unsigned field, std::int64_t* value) override {
    nvmlFieldValue_t v{};
    v.fieldId = field;
    const int rc = call<FieldsFn>("nvmlDeviceGetFieldValues", gpu, 1, &v);
    if (rc != NVML_SUCCESS) return rc;
    if (v.nvmlReturn != NVML_SUCCESS) return v.nvmlReturn;
    switch (v.valueType) {
      case NVML_VALUE_TYPE_UNSIGNED_INT: *value = v.value.uiVal; break;
      case NVML_VALUE_TYPE_UNSIGNED_LONG: *value = static_cast<std::int64_t>(v.value.ulVal); break;
      case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *value = static_cast<std::int64_t>(v.value.ullVal); break;
      case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *value = v.value.sllVal; break;
      case NVML_VALUE_TYPE_SIGNED_INT: *value = v.value.siVal; break;
      case NVML_VALUE_TYPE_UNSIGNED_SHORT: *value = v.value.usVal; break;
      default: return nvml_rc::kNotSupported;  // a double: no field read here is one
    }
    return NVML_SUCCESS;
  }

 private:
  template <typename F>
  F sym(const char* name) const {
    return lib_ ? reinterpret_cast<F>(dlsym(lib_, name)) : nullptr;
  }
  template <typename F, typename... Args>
  int call(const char* name, unsigned gpu, Args... args) {
    if (gpu >= devices_.size()) return NVML_ERROR_INVALID_ARGUMENT;
    const F f = sym<F>(name);
    if (!f) return nvml_rc::kFunctionNotFound;
    return f(devices_[gpu], args...);
  }

  void* lib_ = nullptr;
  bool initialised_ = false;
  std::string unavailable_;
  ErrorStringFn error_string_ = nullptr;
  std::vector<nvmlDevice_t> devices_;
  nvmlEventSet_t events_{};
};

}  // namespace

std::unique_ptr<NvmlApi> load_nvml() { return std::make_unique<DlNvml>(); }

#else  // built without nvml.h

bool built_with_nvml() { return false; }

namespace {
class NoNvml final : public UnsupportedNvml {
 public:
  std::string unavailable() const override {
    return "built without nvml.h (scripts/fetch-nvml-header.sh fetches it): GPUs not read";
  }
  std::string error_string(int rc) const override { return "NVML error " + std::to_string(rc); }
};
}  // namespace

std::unique_ptr<NvmlApi> load_nvml() { return std::make_unique<NoNvml>(); }

#endif

}  // namespace commsweep::health
