#include "fabric/nccl_log_capture.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "core/strings.hpp"

namespace commsweep::fabric {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

// NCCL_DEBUG_SUBSYS without INIT (or with ^INIT) loses the lines that name the rank and its
// connections.
bool subsys_has_init(const std::string& subsys) {
  const std::string s = upper_case(subsys);
  if (s.rfind('^', 0) == 0) return s.find("INIT") == std::string::npos;
  return s.find("INIT") != std::string::npos || s.find("ALL") != std::string::npos;
}

constexpr const char* kHowToCapture =
    "unset NCCL_DEBUG and NCCL_DEBUG_FILE to let commsweep capture NCCL's INFO lines";

}  // namespace

std::string nccl_log_host_name() {
  std::string host = system_host_name();
  host = host.substr(0, host.find('.'));
  std::replace(host.begin(), host.end(), '%', '-');
  std::replace(host.begin(), host.end(), '/', '-');
  return host;
}

std::string expand_nccl_debug_file(const std::string& pattern, const std::string& host, int pid) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char c = pattern[++i];
    if (c == 'h') {
      out += host;
    } else if (c == 'p') {
      out += std::to_string(pid);
    } else if (c == '%') {
      out += '%';
    } else {
      out += '%';
      out += c;
    }
  }
  return out;
}

NcclLogCapture::NcclLogCapture() {
  const auto debug = env("NCCL_DEBUG");
  const auto file = env("NCCL_DEBUG_FILE");
  if (debug || file) {
    const std::string level = upper_case(debug.value_or(""));
    if ((level == "INFO" || level == "TRACE") && file) {
      mode_ = Mode::UserFile;
      user_file_ = expand_nccl_debug_file(*file, nccl_log_host_name(), static_cast<int>(getpid()));
      note_ = "NCCL_DEBUG=" + *debug + " and NCCL_DEBUG_FILE are yours: read from " + user_file_ + ", left in place";
      const auto subsys = env("NCCL_DEBUG_SUBSYS");
      if (subsys && !subsys_has_init(*subsys))
        note_ += "; NCCL_DEBUG_SUBSYS=" + *subsys + " lacks INIT, so the report may be empty";
    } else if (!debug) {
      note_ = "NCCL_DEBUG_FILE is set without NCCL_DEBUG=INFO, so NCCL writes no INFO lines: " +
              std::string(kHowToCapture);
    } else if (level == "INFO" || level == "TRACE") {
      note_ = "NCCL_DEBUG=" + *debug + " without NCCL_DEBUG_FILE prints NCCL's lines to stdout, out of "
              "commsweep's reach: set NCCL_DEBUG_FILE=/tmp/nccl.%h.%p too, or " + kHowToCapture;
    } else {
      note_ = "NCCL_DEBUG=" + *debug + " is yours, so NCCL's INFO lines are not captured: " + kHowToCapture;
    }
    return;
  }
  std::string pattern = (fs::temp_directory_path() / "commsweep-nccl.XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a folder for NCCL's log in " + fs::temp_directory_path().string());
  folder_ = pattern;
  saved_subsys_ = env("NCCL_DEBUG_SUBSYS");
  // %h and %p: NCCL substitutes the host and the process id, one file per process.
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_FILE", (folder_ + "/nccl.%h.%p").c_str(), 1);
  setenv("NCCL_DEBUG_SUBSYS", kCaptureSubsystems, 1);
  mode_ = Mode::Private;
  note_ = "captured";
}

NcclLogCapture::~NcclLogCapture() { finish(); }

void NcclLogCapture::finish() {
  if (mode_ != Mode::Private || folder_.empty()) return;
  unsetenv("NCCL_DEBUG");
  unsetenv("NCCL_DEBUG_FILE");
  if (saved_subsys_) {
    setenv("NCCL_DEBUG_SUBSYS", saved_subsys_->c_str(), 1);
  } else {
    unsetenv("NCCL_DEBUG_SUBSYS");
  }
  std::error_code ec;
  fs::remove_all(folder_, ec);
  folder_.clear();
}

std::vector<RankTransport> NcclLogCapture::read() const {
  std::vector<RankTransport> ranks;
  std::vector<std::string> files;
  if (mode_ == Mode::UserFile) files.push_back(user_file_);
  if (mode_ == Mode::Private && !folder_.empty()) {
    std::error_code ec;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec))
      files.push_back(it->path().string());
  }
  for (const auto& path : files) {
    std::ifstream in(path);
    auto some = parse_nccl_log(in);
    ranks.insert(ranks.end(), some.begin(), some.end());
  }
  return merge_ranks(std::move(ranks));
}

}  // namespace commsweep::fabric
