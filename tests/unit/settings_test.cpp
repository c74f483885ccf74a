// The settings tables (settings/setting.hpp) of every workload check themselves: each entry has
// help, a flag or a key, flags and keys unique per table, and a default that reads under its own
// type; and the reader names where a value came from.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "collectives/settings.hpp"
#include "ep/settings.hpp"
#include "pairs/settings.hpp"
#include "settings/program_options.hpp"
#include "usage_error.hpp"

namespace commsweep {
namespace {

using testing::throws_usage;

template <typename Config>
void check_table(const settings::Table<Config>& table) {
  std::set<std::string> flags, keys;
  std::set<char> letters;
  for (const settings::Spec* s : table.specs()) {
    const std::string name = s->flag.empty() ? s->key : s->flag;
    SCOPED_TRACE(table.name + ": " + name);
    EXPECT_FALSE(s->flag.empty() && s->key.empty()) << "neither flag nor key";
    EXPECT_FALSE(s->help.empty());
    EXPECT_FALSE(s->section.empty());
    if (!s->flag.empty()) { EXPECT_TRUE(flags.insert(s->flag).second) << "flag twice"; }
    if (!s->key.empty()) { EXPECT_TRUE(keys.insert(s->key).second) << "key twice"; }
    if (s->letter) { EXPECT_TRUE(letters.insert(s->letter).second) << "letter twice"; }
    if (s->type.kind == settings::Kind::Choice) { EXPECT_FALSE(s->type.choices.empty()); }
    if (s->type.kind == settings::Kind::Whole) { EXPECT_LE(s->type.min, s->type.max); }
    if (s->default_text) {
      settings::Given g;
      g.where = s->flag_name();
      g.value = *s->default_text;
      EXPECT_NO_THROW(settings::read(s->type, g)) << "default " << *s->default_text;
    }
  }
  // The defaults together pass the checks between settings, and --help lists every flag.
  Config config;
  EXPECT_NO_THROW(settings::apply(table, config, {}));
  boost::program_options::options_description d;
  settings::describe(d, table.specs());
  for (const auto& f : flags) EXPECT_NE(d.find_nothrow(f, false), nullptr) << f;
}

TEST(Settings, EveryTableChecksItself) {
  check_table(collective_settings());
  check_table(ep::ep_settings());
  check_table(pairs::pairs_settings());
}

TEST(Settings, ChoicesComeFromTheModelsNames) {
  for (const settings::Spec* s : collective_settings().specs()) {
    if (s->key == "dtypes") { EXPECT_EQ(s->type.choices.size(), all_data_types().size()); }
    if (s->key == "ops") { EXPECT_EQ(s->type.choices.size(), all_red_ops().size()); }
  }
  for (const settings::Spec* s : ep::ep_settings().specs()) {
    if (s->key == "impl") { EXPECT_EQ(s->type.choices, (std::vector<std::string>{"alltoallv", "lsa"})); }
    if (s->key == "routing") { EXPECT_EQ(s->type.choices.size(), ep::all_routing_kinds().size()); }
  }
}

TEST(Settings, ReadNamesWhereTheValueCameFrom) {
  settings::Given cli;
  cli.where = "-n/--iters";
  cli.from = settings::Given::From::CommandLine;
  cli.value = "0";
  EXPECT_TRUE(throws_usage([&] { settings::read(settings::whole(1, 9), cli); },
                           {"-n/--iters: 0 is out of range (1 to 9)"}));
  settings::Given doc;
  doc.where = "s.yaml:3: sweep 1: key \"iters\"";
  doc.from = settings::Given::From::Document;
  doc.value = nlohmann::json::array({1, 2});
  EXPECT_TRUE(throws_usage([&] { settings::read(settings::whole(1, 9), doc); },
                           {"s.yaml:3: sweep 1: key \"iters\": takes one value, not a list"}));
  doc.value = true;
  EXPECT_EQ(settings::read(settings::whole(0, 1), doc).whole, 1);
  doc.value = "64K";
  EXPECT_EQ(settings::read(settings::size(), doc).count, 64u << 10);
  doc.value = nlohmann::json::array({"a", "b", "a"});
  EXPECT_TRUE(throws_usage([&] { settings::read(settings::list_of(settings::choice({"a", "b"}), true), doc); },
                           {"key \"iters\": 'a' is given twice"}));
}

}  // namespace
}  // namespace commsweep
