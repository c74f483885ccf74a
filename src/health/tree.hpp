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

// What a root folder given by the user is: a tree with sys/ under it (/, a fixture, a host's /
// mounted in a pod), a sysfs itself (/sys, or a host's /sys mounted elsewhere: it holds class/
// and no sys/, and is read as /sys), the trees of two snapshots (before/ and after/ under it, as
// tests/fixtures/health/<case>/ holds them: not one tree), or none of these (nothing to read).
enum class RootKind { Tree, Sysfs, Snapshots, Other };
RootKind root_kind(const std::string& root);

// fabric::SysfsRoot (the root, paths, folder listings, links: the preflight's reader) with a
// bounded read that says why it failed. A root of RootKind::Sysfs is read as /sys: /sys/class/x
// is ROOT/class/x.
class Tree {
 public:
  explicit Tree(std::string root = "/");
  const std::string& root() const { return files_.root(); }
  std::string path(const std::string& absolute) const { return files_.path(under(absolute)); }
  bool exists(const std::string& absolute) const { return files_.exists(under(absolute)); }
  FileText read(const std::string& absolute) const;
  // Names in a folder, sorted (numbers numerically); empty when absent.
  std::vector<std::string> list(const std::string& absolute) const { return files_.list(under(absolute)); }
  // The last component of a symbolic link's target.
  std::optional<std::string> link_name(const std::string& absolute) const { return files_.link_name(under(absolute)); }

 private:
  // ABSOLUTE ("/sys/class/infiniband") as a path under the root: without its /sys where the
  // root is a sysfs itself.
  std::string under(const std::string& absolute) const;
  fabric::SysfsRoot files_;
  bool sysfs_itself_ = false;
};

}  // namespace commsweep::health
