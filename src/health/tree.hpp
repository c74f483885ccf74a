// The files of a machine's /sys read through a root folder: "/" on the live machine, a fixture
// tree in tests (tests/fixtures/health/<case>/). Every read is bounded and says why it failed,
// so that an unreadable, missing or oversized file becomes a line in the report, not a crash.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fabric/sysfs.hpp"

namespace commsweep::health {

// A sysfs attribute is at most a page; anything larger is not what the kernel wrote.
inline constexpr std::size_t kMaxAttributeBytes = 4096;

struct FileText {
  std::optional<std::string> text;  // without trailing white space; nullopt on failure
  std::string problem;              // "missing", "unreadable (Permission denied)", "too large (...)"
  bool missing = false;             // absent (not an error for optional files)
};

// fabric::SysfsRoot (the root, paths, folder listings, links: the preflight's reader) with a
// bounded read that says why it failed.
class Tree {
 public:
  explicit Tree(std::string root = "/") : files_(std::move(root)) {}
  const std::string& root() const { return files_.root(); }
  std::string path(const std::string& absolute) const { return files_.path(absolute); }
  bool exists(const std::string& absolute) const { return files_.exists(absolute); }
  FileText read(const std::string& absolute) const;
  // Names in a folder, sorted (numbers numerically); empty when absent.
  std::vector<std::string> list(const std::string& absolute) const { return files_.list(absolute); }
  // The last component of a symbolic link's target.
  std::optional<std::string> link_name(const std::string& absolute) const { return files_.link_name(absolute); }

 private:
  fabric::SysfsRoot files_;
};

}  // namespace commsweep::health
