// The settings tables (settings/setting.hpp) of every workload check themselves: each entry has
// help, a flag or a key, flags and keys unique per table, and a default that reads under its own
// type; and the reader names where a value came from.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "collectives/settings.hpp"
#include "ep/implementation.hpp"
#include "ep/settings.hpp"
#include "pairs/settings.hpp"
#include "run/run_settings.hpp"
#include "run/workload.hpp"
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
  check_table(run_settings());
  check_table(report_files_settings());
}

// The run's settings (--backend, --json, -T, the fabric flags, ...) and the report files of a
// workload with a document (--html, --prometheus) are declared once: no registered workload
// declares one of their flags, letters or keys again, and every workload's --help sections name
// sections its table has.
TEST(Settings, TheRunsSettingsAreDeclaredOnce) {
  std::set<std::string> run;
  std::vector<const settings::Spec*> once = run_settings().specs();
  for (const settings::Spec* s : report_files_settings().specs()) once.push_back(s);
  for (const settings::Spec* s : once) {
    if (!s->flag.empty()) run.insert("--" + s->flag);
    if (s->letter) run.insert(std::string("-") + s->letter);
    if (!s->key.empty()) run.insert("key " + s->key);
  }
  EXPECT_TRUE(run.count("--backend") && run.count("--json") && run.count("-T") && run.count("--bind") &&
              run.count("--html") && run.count("--prometheus"));
  for (const Workload* w : workloads()) {
    SCOPED_TRACE(std::string(w->name));
    std::set<std::string> sections;
    for (const settings::Spec* s : w->specs()) {
      sections.insert(s->section);
      if (!s->flag.empty()) { EXPECT_EQ(run.count("--" + s->flag), 0u) << s->flag; }
      if (s->letter) { EXPECT_EQ(run.count(std::string("-") + s->letter), 0u) << s->letter; }
      if (!s->key.empty()) { EXPECT_EQ(run.count("key " + s->key), 0u) << s->key; }
    }
    for (const auto& [section, title] : w->sections) EXPECT_EQ(sections.count(std::string(section)), 1u) << title;
  }
}

// Every workload with a document of its own (pairs, nvlink) takes --html and --prometheus, and a
// suite's sweep of it the keys html and prometheus, from the one table; the others neither.
TEST(Settings, EveryWorkloadWithADocumentTakesItsReportFiles) {
  for (const Workload* w : workloads()) {
    SCOPED_TRACE(std::string(w->name));
    std::set<std::string> flags, keys;
    for (const settings::Spec* s : document_specs(*w)) flags.insert(s->flag);
    for (const settings::Spec* s : entry_specs(*w)) keys.insert(s->key);
    const bool document = !w->schema.empty();
    const std::set<std::string> offered = document ? std::set<std::string>{"html", "prometheus"} : std::set<std::string>{};
    EXPECT_EQ(flags, offered);
    EXPECT_EQ(keys.count("html") + keys.count("prometheus"), document ? 2u : 0u);
  }
  EXPECT_FALSE(document_specs(*find_workload("pairs")).empty());
  EXPECT_FALSE(document_specs(*find_workload("nvlink")).empty());
}

TEST(Settings, ChoicesComeFromTheModelsNames) {
  for (const settings::Spec* s : collective_settings().specs()) {
    if (s->key == "dtypes") { EXPECT_EQ(s->type.choices.size(), all_data_types().size()); }
    if (s->key == "ops") { EXPECT_EQ(s->type.choices.size(), all_red_ops().size()); }
  }
  for (const settings::Spec* s : ep::ep_settings().specs()) {
    // The registered implementations, whichever are built in (an added one needs no edit here).
    if (s->key == "impl") { EXPECT_EQ(s->type.choices, ep::ep_implementation_names()); }
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
