#include "comm/nccl_profiler_reader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace commsweep {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool readable(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string nccl_profiler_path(const std::string& exe) {
  const std::string folder = folder_of(exe);
  for (const std::string& candidate : {folder + "/" + kNcclProfilerFile, folder + "/../lib/" + kNcclProfilerFile}) {
    if (readable(candidate)) return candidate;
  }
  return "";
}

ProfilerPlan plan_nccl_profiler(const char* value, const std::string& plugin) {
  ProfilerPlan plan;
  if (value != nullptr && *value != '\0') {
    const std::string given = value;
    if (base_name(given) != kNcclProfilerFile) {
      plan.why_not = "NCCL_PROFILER_PLUGIN=" + given +
                     " is set (NCCL loads one profiler plugin: commsweep's is not used; unset it to see NCCL's choice)";
      return plan;
    }
    plan.use = true;
    plan.path = given;  // commsweep's own, named by the user or by a parent commsweep
    return plan;
  }
  if (plugin.empty()) {
    plan.why_not = std::string(kNcclProfilerFile) + " is not beside the commsweep binary nor in its ../lib";
    return plan;
  }
  plan.use = true;
  plan.set_variable = true;
  plan.path = plugin;
  return plan;
}

NcclProfilerRecords::NcclProfilerRecords(const std::string& path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    why_not_ = "cannot open " + path + ": " + (why != nullptr ? why : "unknown error");
    return;
  }
  auto abi = reinterpret_cast<int (*)()>(dlsym(handle_, "commsweep_nccl_records_abi"));
  if (abi == nullptr || abi() != COMMSWEEP_NCCL_RECORDS_ABI) {
    why_not_ = path + " is not commsweep's NCCL profiler plugin of this build (records ABI " +
               std::to_string(COMMSWEEP_NCCL_RECORDS_ABI) + ")";
    return;
  }
  recorded_ = reinterpret_cast<std::uint64_t (*)()>(dlsym(handle_, "commsweep_nccl_recorded"));
  records_since_ = reinterpret_cast<int (*)(std::uint64_t, commsweep_nccl_record*, int)>(
      dlsym(handle_, "commsweep_nccl_records_since"));
  time_kernels_ = reinterpret_cast<void (*)(int)>(dlsym(handle_, "commsweep_nccl_time_kernels"));
  kernels_timed_ = reinterpret_cast<int (*)()>(dlsym(handle_, "commsweep_nccl_kernels_timed"));
  task_events_ = reinterpret_cast<void (*)(int)>(dlsym(handle_, "commsweep_nccl_task_events"));
  if (recorded_ == nullptr || records_since_ == nullptr || time_kernels_ == nullptr || kernels_timed_ == nullptr ||
      task_events_ == nullptr) {
    recorded_ = nullptr;
    why_not_ = path + " lacks the records' functions";
  }
}

NcclProfilerRecords::~NcclProfilerRecords() {
  if (handle_ != nullptr) dlclose(handle_);
}

NcclProfilerRecords::NcclProfilerRecords(NcclProfilerRecords&& other) noexcept { *this = std::move(other); }

NcclProfilerRecords& NcclProfilerRecords::operator=(NcclProfilerRecords&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    recorded_ = std::exchange(other.recorded_, nullptr);
    records_since_ = std::exchange(other.records_since_, nullptr);
    time_kernels_ = std::exchange(other.time_kernels_, nullptr);
    kernels_timed_ = std::exchange(other.kernels_timed_, nullptr);
    task_events_ = std::exchange(other.task_events_, nullptr);
    why_not_ = std::move(other.why_not_);
  }
  return *this;
}

void NcclProfilerRecords::time_kernels(bool on) const {
  if (time_kernels_ != nullptr) time_kernels_(on ? 1 : 0);
}

void NcclProfilerRecords::task_events(bool on) const {
  if (task_events_ != nullptr) task_events_(on ? 1 : 0);
}

bool NcclProfilerRecords::kernels_timed() const { return kernels_timed_ != nullptr && kernels_timed_() != 0; }

std::uint64_t NcclProfilerRecords::mark() const { return recorded_ != nullptr ? recorded_() : 0; }

std::vector<commsweep_nccl_record> NcclProfilerRecords::since(std::uint64_t mark) const {
  std::vector<commsweep_nccl_record> out;
  if (records_since_ == nullptr) return out;
  constexpr int kBatch = 256;
  commsweep_nccl_record batch[kBatch];
  for (int n; (n = records_since_(mark, batch, kBatch)) > 0;) {
    out.insert(out.end(), batch, batch + n);
    mark = batch[n - 1].sequence;
  }
  return out;
}

report::NcclChoice nccl_choice_of(const std::vector<commsweep_nccl_record>& records) {
  std::map<std::tuple<std::string, std::string, int>, int> collectives;
  int p2p_channels = 0, p2p_tasks = 0, coll_tasks = 0;
  for (const auto& r : records) {
    if (r.task == COMMSWEEP_NCCL_P2P) {
      ++p2p_tasks;
      p2p_channels = std::max(p2p_channels, static_cast<int>(r.channels));
    } else {
      ++coll_tasks;
      ++collectives[{r.algorithm, r.protocol, r.channels}];
    }
  }
  if (coll_tasks == 0 && p2p_tasks == 0) return {"unknown (no NCCL task recorded)", "unknown", 0, "profiler"};
  if (coll_tasks == 0) return {"P2P", "-", p2p_channels, "profiler: " + std::to_string(p2p_tasks) + " send/receive tasks"};
  auto most = collectives.begin();
  for (auto it = collectives.begin(); it != collectives.end(); ++it) {
    if (it->second > most->second) most = it;
  }
  const auto& [algorithm, protocol, channels] = most->first;
  std::string source = "profiler";
  if (most->second != coll_tasks) {
    source += ": " + std::to_string(most->second) + " of " + std::to_string(coll_tasks) + " tasks chose this";
  }
  return {algorithm, protocol, channels, source};
}

namespace {

bool silent(const commsweep_nccl_record& r) { return r.kernel_channels_started == 0; }

bool all_channels_reported(const commsweep_nccl_record& r) {
  if (silent(r) || r.kernel_channels_stopped != r.kernel_channels_started) return false;
  // A collective's channels each report; a point-to-point task's proxy operations need not
  // match the channels its descriptor gives.
  return r.task != COMMSWEEP_NCCL_COLL || r.kernel_channels_stopped >= r.channels;
}

}  // namespace

KernelTimes kernel_iteration_times(const std::vector<commsweep_nccl_record>& records, int iterations,
                                   bool silent_done) {
  KernelTimes out;
  if (iterations <= 0 || records.empty() || records.size() % static_cast<std::size_t>(iterations) != 0) {
    out.why_not = std::to_string(records.size()) + " NCCL tasks recorded for " + std::to_string(iterations) +
                  " iterations";
    return out;
  }
  std::size_t waiting = 0;
  for (const auto& r : records) {
    out.silent += silent(r) ? 1 : 0;
    waiting += all_channels_reported(r) || (silent_done && silent(r)) ? 0 : 1;
  }
  if (waiting > 0) {
    out.why_not = std::to_string(waiting) + " of " + std::to_string(records.size()) +
                  " NCCL tasks have not all their kernel channels' ends";
    return out;
  }
  const std::size_t per = records.size() / static_cast<std::size_t>(iterations);
  for (std::size_t i = 0; i < records.size(); i += per) {
    std::uint64_t start = 0, stop = 0;
    for (std::size_t k = i; k < i + per; ++k) {
      if (silent(records[k])) continue;
      start = std::max(start, records[k].gpu_start_ns);
      stop = std::max(stop, records[k].gpu_stop_ns);
    }
    if (stop == 0) {
      out.iteration_us.clear();
      out.why_not = "iteration " + std::to_string(i / per + 1) + "'s NCCL tasks reported no kernel channel";
      return out;
    }
    out.iteration_us.push_back(stop > start ? static_cast<double>(stop - start) / 1000.0 : 0.0);
  }
  out.complete = true;
  return out;
}

}  // namespace commsweep
