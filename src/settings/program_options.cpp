#include "settings/program_options.hpp"

namespace commsweep::settings {

namespace po = boost::program_options;

namespace {

// A list of values: a repeatable flag, one taking several words, or the command's words.
bool takes_list(const Spec& s) { return s.repeatable || s.multitoken || (s.words != 0 && s.words != 1); }

void add_option(po::options_description& options, const Spec& s) {
  const std::string name = s.flag + (s.letter ? std::string(",") + s.letter : std::string());
  if (s.type.kind == Kind::Presence) {
    options.add_options()(name.c_str(), s.help.c_str());
    return;
  }
  if (takes_list(s)) {
    auto* value = po::value<std::vector<std::string>>()->composing();
    if (s.multitoken) value->multitoken();
    options.add_options()(name.c_str(), value, s.help.c_str());
    return;
  }
  auto* value = po::value<std::string>();
  if (s.default_text) value->default_value(*s.default_text);
  options.add_options()(name.c_str(), value, s.help.c_str());
}

}  // namespace

void describe(po::options_description& options, const std::vector<const Spec*>& specs,
              const std::string& section) {
  for (const Spec* s : specs) {
    if (s->flag.empty() || (s->words != 0 && s->help.empty()) || (!section.empty() && s->section != section)) continue;
    add_option(options, *s);
  }
}

void describe_words(po::options_description& options, po::positional_options_description& positional,
                    const std::vector<const Spec*>& specs) {
  for (const Spec* s : specs) {
    if (s->words == 0) continue;
    if (!options.find_nothrow(s->flag, false)) add_option(options, *s);
    positional.add(s->flag.c_str(), s->words);
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
    } else if (takes_list(*s)) {
      g.value = vm[s->flag].as<std::vector<std::string>>();
    } else {
      g.value = vm[s->flag].as<std::string>();
    }
    flags.emplace(s->flag, std::move(g));
  }
  return flags;
}

}  // namespace commsweep::settings
