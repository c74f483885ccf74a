// The suite files' YAML subset: what it reads (as JSON, with the line of every value) and
// every construct it refuses, with the line where it stands.
#include <gtest/gtest.h>

#include <string>

#include "suite/document.hpp"
#include "suite/yaml_subset.hpp"

namespace commsweep::suite {
namespace {

using nlohmann::json;

// The line and reason of the refusal, or line -1 when nothing was refused.
std::pair<int, std::string> refusal(const std::string& text) {
  try {
    parse_yaml_subset(text);
  } catch (const SyntaxError& e) {
    return {e.line(), e.what()};
  }
  return {-1, "accepted"};
}

TEST(YamlSubset, ReadsASuiteShapedDocument) {
  const std::string text =
      "# a comment\n"
      "---\n"
      "description: two sweeps   # trailing comment\n"
      "sweeps:\n"
      "  - name: small\n"
      "    kind: collective\n"
      "    tests: [all_reduce, 'all_gather', \"sendrecv\"]\n"
      "    min_bytes: 8\n"
      "    max_bytes: 64K\n"
      "\n"
      "  - name: \"moe: ep\"\n"
      "    kind: ep\n"
      "    tokens:\n"
      "      - 16\n"
      "      - 64\n"
      "    skew: 1.5\n"
      "    check: true\n"
      "    seed: ~\n";
  const Document doc = parse_yaml_subset(text);
  const json expected = json::parse(R"({
    "description": "two sweeps",
    "sweeps": [
      {"name": "small", "kind": "collective", "tests": ["all_reduce", "all_gather", "sendrecv"],
       "min_bytes": 8, "max_bytes": "64K"},
      {"name": "moe: ep", "kind": "ep", "tokens": [16, 64], "skew": 1.5, "check": true,
       "seed": null}]})");
  EXPECT_EQ(doc.value, expected) << doc.value.dump(2);
  EXPECT_EQ(doc.line_of("/sweeps"), 4);
  EXPECT_EQ(doc.line_of("/sweeps/0"), 5);
  EXPECT_EQ(doc.line_of("/sweeps/0/tests"), 7);
  EXPECT_EQ(doc.line_of("/sweeps/0/tests/2"), 7);
  EXPECT_EQ(doc.line_of("/sweeps/1/tokens/1"), 15);
  EXPECT_EQ(doc.line_of("/sweeps/1/seed"), 18);
  // A pointer without a line takes its nearest ancestor's.
  EXPECT_EQ(doc.line_of("/sweeps/1/nothing/here"), 11);
}

TEST(YamlSubset, SequenceAtItsKeysIndentAndTopLevelList) {
  const Document doc = parse_yaml_subset(
      "- kind: ep\n"
      "  tokens:\n"
      "  - 1\n"
      "  - 2\n"
      "  hidden: 256\n"
      "-\n"
      "  kind: collective\n"
      "- - nested\n"
      "  - [a, [b, c], []]\n");
  EXPECT_EQ(doc.value, json::parse(R"([{"kind": "ep", "tokens": [1, 2], "hidden": 256},
                                       {"kind": "collective"}, ["nested", ["a", ["b", "c"], []]]])"))
      << doc.value.dump();
  EXPECT_EQ(doc.line_of("/0/hidden"), 5);
  EXPECT_EQ(doc.line_of("/1/kind"), 7);
  EXPECT_EQ(doc.line_of("/2/1"), 9);
}

TEST(YamlSubset, ScalarTypes) {
  const Document doc = parse_yaml_subset(
      "a: 12\nb: -3\nc: 2.5e3\nd: 8G\ne: 'it''s'\nf: \"tab\\tand \\u00e9\"\ng: TRUE\nh: false\n"
      "i:\nj: null\nk: 0x10\nl: 99999999999999999999999\nm: http://host:80/x\nn: a#b\n");
  EXPECT_EQ(doc.value["a"], 12);
  EXPECT_EQ(doc.value["b"], -3);
  EXPECT_EQ(doc.value["c"], 2500.0);
  EXPECT_EQ(doc.value["d"], "8G");
  EXPECT_EQ(doc.value["e"], "it's");
  EXPECT_EQ(doc.value["f"], "tab\tand \xC3\xA9");
  EXPECT_EQ(doc.value["g"], true);
  EXPECT_EQ(doc.value["h"], false);
  EXPECT_TRUE(doc.value["i"].is_null());
  EXPECT_TRUE(doc.value["j"].is_null());
  EXPECT_EQ(doc.value["k"], "0x10");  // YAML 1.2 core reads hex too; the suite needs no hex
  EXPECT_EQ(doc.value["l"], "99999999999999999999999");  // past 64 bits: text, refused later
  EXPECT_EQ(doc.value["m"], "http://host:80/x");
  EXPECT_EQ(doc.value["n"], "a#b");  // '#' starts a comment only after a blank
}

// yaml-cpp reads what YAML allows and the old subset refused: a flow sequence or a quoted
// string over several lines.
TEST(YamlSubset, FlowSequencesAndQuotedStringsMaySpanLines) {
  const Document doc = parse_yaml_subset("a: [1, 2\n  , 3]\nb: 'one\n  two'\n");
  EXPECT_EQ(doc.value, json::parse(R"({"a": [1, 2, 3], "b": "one two"})")) << doc.value.dump();
  EXPECT_EQ(doc.line_of("/b"), 3);
}

TEST(YamlSubset, CrLfLineEndsAndAByteOrderMark) {
  const Document doc = parse_yaml_subset("\xEF\xBB\xBFkind: ep\r\ntokens: [1, 2]\r\n");
  EXPECT_EQ(doc.value, json::parse(R"({"kind": "ep", "tokens": [1, 2]})"));
  EXPECT_EQ(doc.line_of("/tokens"), 2);
}

struct Refused {
  const char* name;
  const char* text;
  int line;
  const char* reason;  // a word the message must hold
};

class YamlSubsetRefuses : public ::testing::TestWithParam<Refused> {};

TEST_P(YamlSubsetRefuses, NamesTheLineAndTheReason) {
  const Refused& r = GetParam();
  const auto [line, reason] = refusal(r.text);
  EXPECT_EQ(line, r.line) << reason;
  EXPECT_NE(reason.find(r.reason), std::string::npos) << reason;
}

INSTANTIATE_TEST_SUITE_P(
    Constructs, YamlSubsetRefuses,
    ::testing::Values(
        Refused{"anchor", "a: 1\nb: &x 2\n", 2, "anchors"},
        Refused{"alias", "a: 1\nb:\n  - *x\n", 3, "aliases"},
        Refused{"alias_bomb", "a: &a [x, x]\nb: [*a, *a]\n", 1, "anchors"},
        Refused{"alias_in_flow", "a: [1, *x]\n", 1, "aliases"},
        Refused{"tag", "a: !!str 5\n", 1, "tags"},
        Refused{"tag_on_key", "!t a: 5\n", 1, "tags"},
        Refused{"flow_mapping", "a: 1\nb: {c: 2}\n", 2, "flow mappings"},
        Refused{"flow_mapping_in_sequence", "a: [1, {c: 2}]\n", 1, "flow mappings"},
        Refused{"pair_in_flow_sequence", "a: [c: 2]\n", 1, "flow mappings"},
        Refused{"literal_block", "a: |\n  text\n", 1, "block scalars"},
        Refused{"folded_block", "x: 1\na: >-\n  text\n", 2, "block scalars"},
        Refused{"complex_key", "? a\n: b\n", 1, "complex keys"},
        Refused{"directive", "%YAML 1.2\n---\na: 1\n", 1, "directives"},
        Refused{"second_document", "a: 1\n---\nb: 2\n", 2, "second document"},
        Refused{"document_end", "a: 1\n...\n", 2, "end markers"},
        Refused{"tab_indent", "a:\n\t- 1\n", 2, "tab"},
        Refused{"duplicate_key", "a: 1\nb: 2\na: 3\n", 3, "duplicate key 'a' (first on line 1)"},
        Refused{"multi_line_plain", "a:\n  two\n  lines\n", 3, "next line"},
        Refused{"bad_indent", "a:\n    b: 1\n  c: 2\n", 3, "unexpected indentation"},
        Refused{"over_indented_key", "a: 1\n  b: 2\n", 2, "unexpected indentation"},
        Refused{"item_among_keys", "a: 1\n- b\n", 2, "sequence item"},
        Refused{"key_in_sequence", "- a\nb: 1\n", 2, "top level"},
        Refused{"mapping_in_value", "a: b: c\n", 1, "quote the value"},
        Refused{"unclosed_quote", "a: 'x\n", 1, "not closed"},
        Refused{"unclosed_flow", "a: [1, 2\n", 1, "never closed"},
        Refused{"text_after_quote", "a: 'x' y\n", 1, "unexpected text"},
        Refused{"bad_escape", "a: \"\\q\"\n", 1, "unknown escape"},
        Refused{"nul_escape", "a: \"\\u0000\"\n", 1, "NUL"},
        Refused{"empty", "# nothing\n\n", 1, "empty"},
        Refused{"control_character", "a: 1\nb: \x01\n", 2, "control character"},
        Refused{"not_utf8", "a: 1\nb: \xC3\x28\n", 2, "UTF-8"},
        Refused{"less_than_first_line", "  a: 1\nb: 2\n", 2, "indented less"},
        Refused{"no_key", "a: 1\nplain\n", 2, "expected 'key: value'"},
        Refused{"empty_flow_item", "a: [1, , 2]\n", 1, "empty item"}),
    [](const ::testing::TestParamInfo<Refused>& info) { return std::string(info.param.name); });

TEST(YamlSubset, NestingDeeperThanTheLimitIsRefused) {
  std::string deep = "a: " + std::string(kMaxDepth + 5, '[') + std::string(kMaxDepth + 5, ']') + "\n";
  EXPECT_EQ(refusal(deep).first, 1);
  EXPECT_NE(refusal(deep).second.find("nested deeper"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < kMaxDepth + 5; ++i) blocks += std::string(2 * i, ' ') + "k:\n";
  EXPECT_NE(refusal(blocks).second.find("nested deeper"), std::string::npos);
}

TEST(JsonDocument, DuplicateKeysAndDepthAreRefused) {
  EXPECT_THROW(parse_json_document(R"([{"a": 1, "a": 2}])"), SyntaxError);
  EXPECT_NO_THROW(parse_json_document(R"([{"a": 1}, {"a": 2}])"));
  EXPECT_THROW(parse_json_document(std::string(100, '[') + std::string(100, ']')), SyntaxError);
  // Found by the fuzzer: nlohmann throws out_of_range, not parse_error, for this number.
  EXPECT_THROW(parse_json_document("[3e433]"), SyntaxError);
  try {
    parse_json_document("[\n  {\"a\": 1},\n  {\"a\": }\n]");
    FAIL() << "accepted";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.line(), 3) << e.what();
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
}

TEST(Document, JsonOrYamlByNameOrFirstCharacter) {
  EXPECT_EQ(parse_document("s.yaml", "[1, 2]").value, json::parse("[1, 2]"));
  EXPECT_EQ(parse_document("s.json", "  {\"a\": [1]}").value, json::parse(R"({"a": [1]})"));
  EXPECT_EQ(parse_document("s.yml", "a: [1]").value, json::parse(R"({"a": [1]})"));
  EXPECT_THROW(parse_document("s.json", "a: [1]"), SyntaxError);
}

}  // namespace
}  // namespace commsweep::suite
