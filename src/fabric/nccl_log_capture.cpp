#include "fabric/nccl_log_capture.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace commsweep::fabric {

namespace fs = std::filesystem;

NcclLogCapture::NcclLogCapture() {
  if (std::getenv("NCCL_DEBUG") || std::getenv("NCCL_DEBUG_FILE")) return;  // the user's own
  std::string pattern = (fs::temp_directory_path() / "commsweep-nccl.XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a folder for NCCL's log in " +
                                                          fs::temp_directory_path().string());
  folder_ = pattern;
  // %h and %p: NCCL substitutes the host and the process id, one file per process.
  setenv("NCCL_DEBUG", "INFO", 0);
  setenv("NCCL_DEBUG_FILE", (folder_ + "/nccl.%h.%p").c_str(), 0);
  active_ = true;
}

NcclLogCapture::~NcclLogCapture() {
  if (!active_) return;
  unsetenv("NCCL_DEBUG");
  unsetenv("NCCL_DEBUG_FILE");
  std::error_code ec;
  fs::remove_all(folder_, ec);
}

std::vector<RankTransport> NcclLogCapture::read() const {
  std::vector<RankTransport> ranks;
  if (!active_) return ranks;
  std::error_code ec;
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream in(it->path());
    auto some = parse_nccl_log(in);
    ranks.insert(ranks.end(), some.begin(), some.end());
  }
  return merge_ranks(std::move(ranks));
}

}  // namespace commsweep::fabric
