// Reads sysfs, procfs and /dev through a root path, so that the same code reads the live
// machine ("/") and the fixture trees the tests point it at (tests/fixtures/sysfs/<case>/).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace commsweep::fabric {

class SysfsRoot {
 public:
  explicit SysfsRoot(std::string root = "/");

  const std::string& root() const { return root_; }
  bool is_live() const { return root_ == "/"; }
  // The real path of an absolute path such as "/sys/class/infiniband".
  std::string path(const std::string& absolute) const;
  bool exists(const std::string& absolute) const;
  // The file's text without the trailing newline; nullopt when it cannot be read.
  std::optional<std::string> read(const std::string& absolute) const;
  // The file's bytes (binary files such as PCI config space).
  std::optional<std::string> read_bytes(const std::string& absolute) const;
  // The names in a folder, sorted (numerically where both names are numbers); empty if absent.
  std::vector<std::string> list(const std::string& absolute) const;
  // The last component of a symbolic link's target ("device" -> "0000:0c:00.0").
  std::optional<std::string> link_name(const std::string& absolute) const;

 private:
  std::string root_;
};

// "4: ACTIVE" -> "ACTIVE": sysfs prefixes some values with their numeric code.
std::string strip_code(const std::string& value);

}  // namespace commsweep::fabric
