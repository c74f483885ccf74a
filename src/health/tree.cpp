#include "health/tree.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace commsweep::health {

namespace fs = std::filesystem;

namespace {
bool is_sysfs_folder(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}
}  // namespace

RootKind root_kind(const std::string& root) {
  const std::string base = root.empty() || root == "/" ? "" : root;
  if (base.empty() || is_sysfs_folder(base + "/sys")) return RootKind::Tree;
  if (is_sysfs_folder(base + "/class")) return RootKind::Sysfs;
  if (is_sysfs_folder(base + "/before") && is_sysfs_folder(base + "/after")) return RootKind::Snapshots;
  return RootKind::Other;
}

Tree::Tree(std::string root) : files_(root), sysfs_itself_(root_kind(root) == RootKind::Sysfs) {}

std::string Tree::under(const std::string& absolute) const {
  if (!sysfs_itself_ || absolute.rfind("/sys", 0) != 0) return absolute;
  if (absolute.size() == 4) return "/";
  return absolute[4] == '/' ? absolute.substr(4) : absolute;
}

FileText Tree::read(const std::string& absolute) const {
  FileText out;
  const std::string p = path(absolute);
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    out.missing = true;
    out.problem = "missing";
    return out;
  }
  if (fs::is_directory(p, ec)) {
    out.problem = "a folder, not a file";
    return out;
  }
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    out.problem = std::string("unreadable (") + std::strerror(errno) + ")";
    return out;
  }
  // Read one byte past the limit: sysfs files report size 4096 whatever they hold.
  std::string text(kMaxAttributeBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    out.problem = std::string("unreadable (") + std::strerror(errno) + ")";
    return out;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxAttributeBytes) {
    out.problem = "too large (over " + std::to_string(kMaxAttributeBytes) + " bytes: not a sysfs attribute)";
    return out;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.pop_back();
  out.text = std::move(text);
  return out;
}

}  // namespace commsweep::health
