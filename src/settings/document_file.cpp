#include "settings/document_file.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "core/text_file.hpp"

namespace commsweep::settings {

std::unique_ptr<DocumentFile> read_document_file(const std::string& flag, const std::string& path,
                                                 const std::vector<const Spec*>& specs, const std::string& kind,
                                                 const std::string& command) {
  auto f = std::make_unique<DocumentFile>();
  f->path = path;
  std::string text;
  try {
    text = read_bounded_file(path, suite::kMaxDocumentBytes);
  } catch (const std::runtime_error& e) {
    throw_usage("--" + flag + ": " + e.what());
  }
  const std::string named = "--" + flag + " " + path;
  std::string list;
  try {
    f->doc = suite::parse_document(path, text);
    list = suite::sweeps_pointer(f->doc);
  } catch (const suite::SyntaxError& e) {
    throw_usage(named + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": " + e.what());
  }
  const auto at_line = [&](const std::string& pointer) {
    const int line = f->doc.line_of(pointer);
    return named + (line > 0 ? ":" + std::to_string(line) : std::string());
  };
  const nlohmann::json& sweeps = f->doc.value.at(nlohmann::json::json_pointer(list));
  if (sweeps.size() != 1) {
    throw_usage(at_line(list) + ": " + std::to_string(sweeps.size()) + " sweeps; `" + command + " --" + flag +
                "` runs a suite of one " + kind + " sweep (run this one with `commsweep suite " + path + "`)");
  }
  DocumentEntry& e = f->entry;
  e.entry = &sweeps.at(0);
  e.path = path;
  e.pointer = list + "/0";
  e.prefix = "--" + flag + " ";
  e.line_of = [&doc = f->doc](const std::string& pointer) { return doc.line_of(pointer); };
  if (!e.entry->is_object()) {
    e.refuse("", "not a mapping of " + kind + " settings (keys: " + key_list(specs, {"name", "kind"}) + ")");
  }
  if (!e.entry->contains("kind")) e.refuse("", "no key \"kind\" (kind: " + kind + ", as `commsweep suite` reads it)");
  if (e.entry->at("kind") != kind) {
    e.refuse("kind", e.entry->at("kind").dump() + " is not " + kind + " (`" + command + " --" + flag + "` runs one sweep of kind " +
                         kind + "; run the file with `commsweep suite " + path + "`)");
  }
  check_keys(e, specs, {"name", "kind"});
  return f;
}

}  // namespace commsweep::settings
