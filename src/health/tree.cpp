#include "health/tree.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace commsweep::health {

namespace fs = std::filesystem;

Tree::Tree(std::string root) : root_(root.empty() ? "/" : std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string Tree::path(const std::string& absolute) const { return root_ == "/" ? absolute : root_ + absolute; }

bool Tree::exists(const std::string& absolute) const {
  std::error_code ec;
  return fs::exists(path(absolute), ec);
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

namespace {
bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

std::vector<std::string> Tree::list(const std::string& absolute) const {
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

std::optional<std::string> Tree::link_name(const std::string& absolute) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path(absolute), ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

}  // namespace commsweep::health
