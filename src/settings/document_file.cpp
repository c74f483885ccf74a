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
  try {
    f->doc = suite::parse_document(path, text);
  } catch (const suite::SyntaxError& e) {
    throw_usage("--" + flag + " " + path + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": " +
                e.what());
  }
  if (!f->doc.value.is_object()) {
    throw_usage("--" + flag + " " + path + ": not a mapping (a JSON object or YAML mapping) of " + kind +
                " settings (keys: " + key_list(specs, {"kind"}) + ")");
  }
  DocumentEntry& e = f->entry;
  e.entry = &f->doc.value;
  e.path = path;
  e.prefix = "--" + flag + " ";
  e.line_of = [&doc = f->doc](const std::string& pointer) { return doc.line_of(pointer); };
  check_keys(e, specs, {"name", "kind"});
  if (f->doc.value.contains("kind") && f->doc.value.at("kind") != kind) {
    e.refuse("kind", f->doc.value.at("kind").dump() + " is not " + kind + " (the keys of `" + command + " --" + flag +
                         "` are an " + kind + " entry's)");
  }
  return f;
}

}  // namespace commsweep::settings
