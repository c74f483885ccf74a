#include "fabric/sysfs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace commsweep::fabric {

namespace fs = std::filesystem;

SysfsRoot::SysfsRoot(std::string root) : root_(root.empty() ? "/" : std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string SysfsRoot::path(const std::string& absolute) const {
  if (root_ == "/") return absolute;
  return root_ + absolute;
}

bool SysfsRoot::exists(const std::string& absolute) const {
  std::error_code ec;
  return fs::exists(path(absolute), ec);
}

std::optional<std::string> SysfsRoot::read_bytes(const std::string& absolute) const {
  std::ifstream in(path(absolute), std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return text;
}

std::optional<std::string> SysfsRoot::read(const std::string& absolute) const {
  auto text = read_bytes(absolute);
  if (!text) return std::nullopt;
  while (!text->empty() && std::isspace(static_cast<unsigned char>(text->back()))) text->pop_back();
  return text;
}

namespace {
bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

std::vector<std::string> SysfsRoot::list(const std::string& absolute) const {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(path(absolute), ec), end;
  for (; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    if (all_digits(a) && all_digits(b) && a.size() != b.size()) return a.size() < b.size();
    return a < b;
  });
  return names;
}

std::optional<std::string> SysfsRoot::link_name(const std::string& absolute) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path(absolute), ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

std::string strip_code(const std::string& value) {
  const auto colon = value.find(':');
  if (colon == std::string::npos) return value;
  std::string rest = value.substr(colon + 1);
  rest.erase(0, rest.find_first_not_of(' '));
  return rest;
}

}  // namespace commsweep::fabric
