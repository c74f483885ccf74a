#include "settings/program_options.hpp"

namespace commsweep::settings {

namespace po = boost::program_options;

void describe(po::options_description& options, const std::vector<const Spec*>& specs,
              const std::string& section) {
  for (const Spec* s : specs) {
    if (s->flag.empty() || (!section.empty() && s->section != section)) continue;
    const std::string name = s->flag + (s->letter ? std::string(",") + s->letter : std::string());
    if (s->type.kind == Kind::Presence) {
      options.add_options()(name.c_str(), s->help.c_str());
      continue;
    }
    if (s->repeatable) {
      options.add_options()(name.c_str(), po::value<std::vector<std::string>>()->composing(), s->help.c_str());
      continue;
    }
    auto* value = po::value<std::string>();
    if (s->default_text) value->default_value(*s->default_text);
    options.add_options()(name.c_str(), value, s->help.c_str());
  }
}

Flags given_flags(const po::variables_map& vm, const std::vector<const Spec*>& specs) {
  Flags flags;
  for (const Spec* s : specs) {
    if (s->flag.empty() || vm.count(s->flag) == 0 || vm[s->flag].defaulted()) continue;
    Given g;
    g.where = s->flag_name();
    g.from = Given::From::CommandLine;
    if (s->type.kind == Kind::Presence) {
      g.value = "1";
    } else if (s->repeatable) {
      g.value = vm[s->flag].as<std::vector<std::string>>();
    } else {
      g.value = vm[s->flag].as<std::string>();
    }
    flags.emplace(s->flag, std::move(g));
  }
  return flags;
}

}  // namespace commsweep::settings
