// One declarative table of settings per workload (collectives, ep, ...): each entry names its
// flag, its suite-file key, its type (range, choices, list), its default, its help and how it
// is applied to the workload's config. The command line (text) and a suite document (JSON or
// YAML values with their lines) are read through the same entries, with messages that name
// where a value came from: "-b/--minbytes: ..." or "FILE:LINE: sweep 2 \"big\": key \"min_bytes\": ...".
// Pure: no MPI, NCCL or CUDA; the workloads own their tables (collectives/settings.hpp,
// ep/settings.hpp) and the commands (cli/) only glue them to Boost.Program_options.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace commsweep::settings {

enum class Kind {
  Whole,      // a whole number within [min, max]; a document's true/false count as 1/0 when in range
  Unsigned,   // a whole number from 0 to 2^64-1 (a seed)
  Size,       // bytes with an optional K M G T suffix (core/sizes.hpp)
  Number,     // a finite number within [low, high] (or (low, high] when above_low)
  Choice,     // one name of `choices` (or an alias)
  Text,       // any text
  Presence,   // a flag without value; in a document true or false
};

struct Type {
  Kind kind = Kind::Text;
  long long min = 0, max = 0;        // Whole
  double low = 0, high = 0;          // Number
  bool above_low = false;            // Number: low itself is refused
  std::vector<std::string> choices;  // Choice: the names, in the model's own order
  // Choice: other spellings (bf16 for bfloat16) -> index into choices; nullopt when unknown.
  std::function<std::optional<int>(const std::string&)> alias;
  std::string noun = "value";  // "unknown type 'x'", "no type given"
  std::string listed;          // how the choices are listed in messages (default: space-separated)
  bool list = false;           // several values: comma text, or a JSON/YAML list
  bool unique = false;         // list: an item given twice is refused (two rows of one name)
  bool all = false;            // list of choices: "all" stands for every choice

  std::string choices_text() const;
};

// Type constructors, for the tables.
Type whole(long long min, long long max);
Type unsigned64();
Type size();
Type positive();  // a number > 0
Type number(double low, double high, bool above_low = false);
Type choice(std::vector<std::string> names, std::string noun = "value", std::string listed = {});
Type text();
Type presence();
Type list_of(Type item, bool unique);

// One value as given, and where: the command line's text, a document's JSON value, or the
// setting's default text.
struct Given {
  enum class From { CommandLine, Document, Default };
  std::string where;  // "-b/--minbytes" or "s.yaml:7: sweep 2 \"big\": key \"min_bytes\""
  From from = From::Default;
  nlohmann::json value;  // a string unless from a document
  std::string folder;    // from a document: its file's folder (relative paths in it)

  bool from_document() const { return from == From::Document; }
  // The value as a user wrote it: the text, or the document's JSON.
  std::string shown() const;
};

// The value read under its type.
struct Value {
  long long whole = 0;        // Whole; Choice: the index
  std::uint64_t count = 0;    // Unsigned, Size
  double number = 0;          // Number
  std::string text;           // Text; Choice: the name
  bool present = false;       // Presence
  std::vector<Value> items;   // lists
};

// Reads `given` under `type`; throws a usage Error "WHERE: why" on a bad value.
Value read(const Type& type, const Given& given);

// A setting, less how it is applied (what the help, the option descriptions, the document
// reader and the schema need).
struct Spec {
  std::string flag;          // long flag without dashes; empty: no flag (document only)
  char letter = 0;           // short flag, or 0
  std::string key;           // key in suite documents; empty: command line only
  Type type;
  std::optional<std::string> default_text;  // read under `type` when neither flag nor key is given
  std::string help;
  std::string section;       // the --help section it is listed under ("hidden": test hooks)
  bool repeatable = false;   // the flag may be given several times (a list of its values)
  bool multitoken = false;   // one flag takes the words after it (--log A B C: a list of its values)
  int words = 0;             // not a flag but the command's words (the arguments no flag takes):
                             // how many (-1: any number); never in --help

  // "-b/--minbytes", "--seed"; "key \"tests\"" for a document-only setting.
  std::string flag_name() const;
};

template <typename Config>
struct Setting {
  Spec spec;
  // Puts the value into the config; may refuse it (throws a usage Error naming given.where).
  std::function<void(Config&, const Value&, const Given&)> apply;
};

// One table entry: its spec's fields in order, then how the value is applied.
template <typename Config>
Setting<Config> entry(const char* flag, char letter, const char* key, Type type,
                      std::optional<std::string> default_text, std::string help, const char* section,
                      std::function<void(Config&, const Value&, const Given&)> apply) {
  return {Spec{flag, letter, key, std::move(type), std::move(default_text), std::move(help), section},
          std::move(apply)};
}

// One table entry from a spec declared elsewhere (settings/shared_flags.hpp: a flag several
// commands take), then how the value is applied.
template <typename Config>
Setting<Config> entry_of(Spec spec, std::function<void(Config&, const Value&, const Given&)> apply) {
  return {std::move(spec), std::move(apply)};
}

// A command's own flag of TYPE: no letter, no suite key, in --help's only section.
inline Spec command_flag(std::string flag, Type type, std::optional<std::string> default_text, std::string help) {
  return Spec{std::move(flag), 0, "", std::move(type), std::move(default_text), std::move(help), {}};
}

// How most entries apply their value: straight into a field of the config, by the field's type:
// a text, a presence flag (bool), a number (double), or a list's items' texts.
template <typename Config>
std::function<void(Config&, const Value&, const Given&)> into(std::string Config::*field) {
  return [field](Config& c, const Value& v, const Given&) { c.*field = v.text; };
}
template <typename Config>
std::function<void(Config&, const Value&, const Given&)> into(bool Config::*field) {
  return [field](Config& c, const Value& v, const Given&) { c.*field = v.present; };
}
template <typename Config>
std::function<void(Config&, const Value&, const Given&)> into(double Config::*field) {
  return [field](Config& c, const Value& v, const Given&) { c.*field = v.number; };
}
template <typename Config>
std::function<void(Config&, const Value&, const Given&)> into(std::vector<std::string> Config::*field) {
  return [field](Config& c, const Value& v, const Given&) {
    for (const auto& item : v.items) (c.*field).push_back(item.text);
  };
}

// A table entry of SPEC whose value goes into FIELD (into()).
template <typename Config, typename Field>
Setting<Config> entry_into(Spec spec, Field Config::*field) {
  return entry_of<Config>(std::move(spec), into(field));
}

// A command's own presence flag into a bool FIELD.
template <typename Config>
Setting<Config> switch_into(const char* flag, std::string help, bool Config::*field) {
  return entry_into(command_flag(flag, presence(), std::nullopt, std::move(help)), field);
}

// Where each setting's value came from, for the checks that involve several.
class Origins {
 public:
  void add(const Spec& spec, std::optional<Given> given);
  // Given on the command line or in a document (not the default, not absent).
  bool given(const std::string& flag) const;
  const Given* find(const std::string& flag) const;
  // How to name the setting: where its value came from, else its flag.
  std::string name(const std::string& flag) const;
  // The value as written (the default's text when defaulted); empty when absent.
  std::string shown(const std::string& flag) const;

 private:
  std::map<std::string, std::pair<std::string, std::optional<Given>>> by_flag_;
};

// The checks between settings, once each is applied.
template <typename Config>
using Finish = std::function<void(Config&, const Origins&)>;

template <typename Config>
struct Table {
  std::string name;  // "collective", "ep"
  std::vector<Setting<Config>> settings;
  Finish<Config> finish;

  std::vector<const Spec*> specs() const {
    std::vector<const Spec*> out;
    for (const auto& s : settings) out.push_back(&s.spec);
    return out;
  }
};

// A document entry whose keys are settings: the entry's JSON object and how to name it.
struct DocumentEntry {
  const nlohmann::json* entry = nullptr;  // an object
  std::string path;                       // the file
  std::string prefix;                     // before the path: "--suite " or ""
  std::string label;                      // after the line: "sweep 2 \"big\"" or ""
  std::string pointer;                    // the entry's JSON pointer in the document
  std::function<int(const std::string&)> line_of;  // JSON pointer -> line (0: unknown)

  // "PREFIX PATH:LINE: LABEL: key \"KEY\"" (no line when unknown, no label when empty).
  std::string where(const std::string& key = {}) const;
  [[noreturn]] void refuse(const std::string& key, const std::string& why) const;
};

// Refuses a key of the entry that is neither a setting of `specs` nor one of `also` (name, kind).
void check_keys(const DocumentEntry& entry, const std::vector<const Spec*>& specs,
                const std::vector<std::string>& also);
// "name kind tokens hidden ...": the keys of an entry, for messages and help.
std::string key_list(const std::vector<const Spec*>& specs, const std::vector<std::string>& also);

// Flags given on the command line, by long flag (by key for a setting without a flag: the
// collectives' tests, the words before the flags).
using Flags = std::map<std::string, Given>;

// The value of one setting: the flag given, else the document's key, else the default.
std::optional<Given> choose(const Spec& spec, const Flags& flags, const DocumentEntry* document);

// Applies every setting of `table` to `config` (flags over the document over the defaults),
// then the table's checks between settings. Returns where each came from.
template <typename Config>
Origins apply(const Table<Config>& table, Config& config, const Flags& flags,
              const DocumentEntry* document = nullptr) {
  Origins origins;
  for (const auto& setting : table.settings) {
    std::optional<Given> given = choose(setting.spec, flags, document);
    if (given) setting.apply(config, read(setting.spec.type, *given), *given);
    origins.add(setting.spec, std::move(given));
  }
  if (table.finish) table.finish(config, origins);
  return origins;
}

}  // namespace commsweep::settings
