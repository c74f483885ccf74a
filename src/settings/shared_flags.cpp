#include "settings/shared_flags.hpp"

#include <utility>

namespace commsweep::settings::shared {
namespace {

// A command-line flag (no suite key) of TYPE.
Spec shared_flag(const char* flag, char letter, Type type, std::optional<std::string> default_text, std::string help,
                 std::string section) {
  return Spec{flag, letter, "", std::move(type), std::move(default_text), std::move(help), std::move(section)};
}

}  // namespace

Spec help(std::string section) { return shared_flag("help", 'h', presence(), std::nullopt, "show this help", std::move(section)); }

Spec json(std::string help, std::string section) {
  return shared_flag("json", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec timeout(std::string default_seconds, std::string help, std::string section) {
  Spec s = shared_flag("timeout", 'T', whole(1, kMaxTimeoutS), std::move(default_seconds), std::move(help),
                       std::move(section));
  s.key = "timeout";  // a suite sweep's key; read only where a document is
  return s;
}

Spec health_thresholds(std::string help, std::string section) {
  return shared_flag("health-thresholds", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec expected(std::string help, std::string section) {
  return shared_flag("expected", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec show_expected(std::string help, std::string section) {
  Spec s = shared_flag("show-expected", 0, presence(), std::nullopt, std::move(help), std::move(section));
  s.key = "show_expected";
  return s;
}

Spec fault(std::string help, std::string section) {
  return shared_flag("fault", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec sysfs_root(std::optional<std::string> default_text, std::string help, std::string section) {
  return shared_flag("sysfs-root", 0, text(), std::move(default_text), std::move(help), std::move(section));
}

Spec annotations(std::string help) { return shared_flag("annotations", 0, text(), std::nullopt, std::move(help), {}); }

Spec bind(std::string help, std::string section) {
  return shared_flag("bind", 0, text(), "none", std::move(help), std::move(section));
}

Spec require_transport(std::optional<std::string> default_text, std::string help, std::string section) {
  return shared_flag("require-transport", 0, text(), std::move(default_text), std::move(help), std::move(section));
}

Spec require_gdr(std::string help, std::string section) {
  return shared_flag("require-gdr", 0, presence(), std::nullopt, std::move(help), std::move(section));
}

Spec shape(std::string help, std::string section) {
  return shared_flag("shape", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec output(std::string help) { return shared_flag("output", 'o', text(), std::nullopt, std::move(help), {}); }

Spec html(std::string help, std::string section) {
  return shared_flag("html", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec prometheus(std::string help, std::string section) {
  return shared_flag("prometheus", 0, text(), std::nullopt, std::move(help), std::move(section));
}

Spec mode(std::optional<std::string> default_text, std::string help) {
  return shared_flag("mode", 0, text(), std::move(default_text), std::move(help), {});
}

Spec descriptions() { return shared_flag("descriptions", 0, text(), std::nullopt, {}, {}); }

Spec out() { return shared_flag("out", 0, text(), std::nullopt, {}, {}); }

}  // namespace commsweep::settings::shared
