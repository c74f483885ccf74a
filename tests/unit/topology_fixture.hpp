// Shared by the topology tests: a private temporary directory (removed even when a test fails)
// in which a test builds a fixture sysfs tree, and the paths of the checked-in fixtures.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace commsweep::testing {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("commsweep-topo-" + std::to_string(getpid()) + "-" + (info ? info->name() : "x"));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A node's sysfs, as far as validate reads it: PCI functions and InfiniBand ports.
class SysfsTree {
 public:
  explicit SysfsTree(const std::filesystem::path& root) : root_(root) {}
  SysfsTree& pci(const std::string& busid) {
    write_text(root_ / "sys/bus/pci/devices" / busid / "vendor", "0x10de\n");
    return *this;
  }
  SysfsTree& ib(const std::string& name, int port, const std::string& state) {
    write_text(root_ / "sys/class/infiniband" / name / "ports" / std::to_string(port) / "state", state + "\n");
    return *this;
  }
  std::string root() const { return root_.string(); }

 private:
  std::filesystem::path root_;
};

inline std::string topology_fixture(const std::string& name) {
  return std::string(COMMSWEEP_TOPOLOGY_FIXTURES) + "/" + name;
}

}  // namespace commsweep::testing
