// The topology XML reader: what it reads, the line it names, and what it refuses (DOCTYPE,
// entities, unbalanced tags, hostile depth).
#include <gtest/gtest.h>

#include <string>

#include "topology/xml.hpp"

namespace commsweep::topology {
namespace {

// The line and reason of the refusal, or "accepted".
std::string refusal(const std::string& text) {
  try {
    parse_xml(text);
  } catch (const XmlError& e) {
    return std::to_string(e.line()) + ": " + e.reason();
  }
  return "accepted";
}

TEST(TopologyXml, ReadsElementsAttributesAndLines) {
  const auto root = parse_xml(
      "<?xml version=\"1.0\"?>\n<!-- a comment -->\n<system version=\"1\">\n"
      "  <cpu numaid='0' affinity=\"ff\">\n    <pci busid=\"0000:0f:00.0\"/>\n  </cpu>\n</system>\n");
  EXPECT_EQ(root.name, "system");
  EXPECT_EQ(root.line, 3);
  ASSERT_EQ(root.children.size(), 1u);
  const auto& cpu = root.children[0];
  EXPECT_EQ(cpu.line, 4);
  ASSERT_NE(cpu.attribute("numaid"), nullptr);
  EXPECT_EQ(*cpu.attribute("numaid"), "0");
  EXPECT_EQ(cpu.attribute("missing"), nullptr);
  ASSERT_EQ(cpu.children.size(), 1u);
  EXPECT_EQ(cpu.children[0].line, 5);
  EXPECT_EQ(*cpu.children[0].attribute("busid"), "0000:0f:00.0");
}

TEST(TopologyXml, ExpandsOnlyPredefinedAndCharacterReferences) {
  const auto root = parse_xml("<a v=\"&lt;&gt;&amp;&quot;&apos;&#65;&#x42;\"/>");
  EXPECT_EQ(*root.attribute("v"), "<>&\"'AB");
  EXPECT_EQ(refusal("<a v=\"&xxe;\"/>"), "1: unknown entity '&xxe;' (entities are not expanded)");
  EXPECT_NE(refusal("<a v=\"&#0;\"/>").find("invalid character"), std::string::npos);
  EXPECT_NE(refusal("<a v=\"a & b\"/>").find("'&' that starts no reference"), std::string::npos);
}

TEST(TopologyXml, RefusesDoctypeWithEntities) {
  const std::string xxe =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE system [\n  <!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>\n"
      "<system version=\"&xxe;\"/>\n";
  const std::string r = refusal(xxe);
  EXPECT_EQ(r.substr(0, 3), "2: ") << r;
  EXPECT_NE(r.find("DOCTYPE refused"), std::string::npos) << r;
  // Billion laughs: refused before any expansion could start.
  EXPECT_NE(refusal("<!DOCTYPE l [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;\">]><l v=\"&b;\"/>").find("DOCTYPE refused"),
            std::string::npos);
  EXPECT_NE(refusal("<a><![CDATA[x]]></a>").find("CDATA"), std::string::npos);
}

TEST(TopologyXml, NamesTheLineOfMalformedInput) {
  EXPECT_EQ(refusal("<system>\n  <cpu>\n  </pci>\n</system>"), "3: </pci> closes <cpu> opened on line 2");
  EXPECT_EQ(refusal("<system>\n  <cpu>\n"), "2: <cpu> is never closed");
  EXPECT_EQ(refusal("<a b=c/>"), "1: attribute value must be quoted");
  EXPECT_EQ(refusal("<a b=\"1\" b=\"2\"/>"), "1: attribute 'b' repeated in <a>");
  EXPECT_EQ(refusal("<a/>\n<b/>"), "2: content after the root element </a>");
  EXPECT_EQ(refusal(""), "1: expected the root element");
  EXPECT_EQ(refusal("<a>\n<!-- open"), "2: unterminated comment");
  EXPECT_EQ(refusal("<a b=\"1\"c=\"2\"/>"), "1: expected a space between attributes of <a>");
}

TEST(TopologyXml, BoundsDepthSizeAndBytes) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  EXPECT_NE(refusal(deep).find("nested deeper than 64"), std::string::npos);
  XmlLimits small;
  small.max_bytes = 10;
  EXPECT_THROW(parse_xml("<system version=\"1\"/>", small), XmlError);
  EXPECT_NE(refusal(std::string("<a>\0</a>", 8)).find("NUL"), std::string::npos);
}

TEST(TopologyXml, EscapesAttributesItWrites) {
  EXPECT_EQ(escape_xml_attribute("a<b>&\"c"), "a&lt;b&gt;&amp;&quot;c");
  const auto back = parse_xml("<x v=\"" + escape_xml_attribute("a<b>&\"c") + "\"/>");
  EXPECT_EQ(*back.attribute("v"), "a<b>&\"c");
}

}  // namespace
}  // namespace commsweep::topology
