// Element types and operators by name: the spellings users bring from nccl-tests and from
// the frameworks (bf16, fp8_e4m3) must all land on the same type.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/types.hpp"

namespace commsweep {
namespace {

TEST(DataTypeNames, AcceptsEveryNcclTestsName) {
  // nccl-tests' -d spellings, in its order.
  const std::pair<const char*, DataType> names[] = {
      {"int8", DataType::Int8},         {"uint8", DataType::Uint8},
      {"int32", DataType::Int32},       {"uint32", DataType::Uint32},
      {"int64", DataType::Int64},       {"uint64", DataType::Uint64},
      {"half", DataType::Float16},      {"float", DataType::Float32},
      {"double", DataType::Float64},    {"bfloat16", DataType::Bfloat16},
      {"f8e4m3", DataType::Float8E4M3}, {"f8e5m2", DataType::Float8E5M2},
  };
  for (const auto& [name, type] : names) {
    const auto parsed = parse_data_type(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, type) << name;
  }
}

TEST(DataTypeNames, AcceptsCommonAliases) {
  const std::pair<const char*, DataType> aliases[] = {
      {"bf16", DataType::Bfloat16},       {"fp16", DataType::Float16},
      {"float16", DataType::Float16},     {"f16", DataType::Float16},
      {"fp32", DataType::Float32},        {"float32", DataType::Float32},
      {"fp64", DataType::Float64},        {"float64", DataType::Float64},
      {"fp8_e4m3", DataType::Float8E4M3}, {"e4m3", DataType::Float8E4M3},
      {"fp8_e5m2", DataType::Float8E5M2}, {"e5m2", DataType::Float8E5M2},
      {"char", DataType::Int8},           {"int", DataType::Int32},
      {"u64", DataType::Uint64},          {"i32", DataType::Int32},
  };
  for (const auto& [alias, type] : aliases) {
    const auto parsed = parse_data_type(alias);
    ASSERT_TRUE(parsed.has_value()) << alias;
    EXPECT_EQ(*parsed, type) << alias;
  }
}

TEST(DataTypeNames, IgnoresCase) {
  EXPECT_EQ(parse_data_type("BF16"), DataType::Bfloat16);
  EXPECT_EQ(parse_data_type("Float"), DataType::Float32);
}

TEST(DataTypeNames, RejectsUnknownNames) {
  for (const char* bad : {"", "float128", "fp8_e3m4", "int16", "floatx", " float", "float "}) {
    EXPECT_FALSE(parse_data_type(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(DataTypeNames, NameOfParsesBackToTheSameType) {
  std::set<std::string> seen;
  for (DataType t : all_data_types()) {
    const std::string name(name_of(t));
    EXPECT_TRUE(seen.insert(name).second) << "two types named " << name;
    EXPECT_EQ(parse_data_type(name), t) << name;
  }
  EXPECT_EQ(seen.size(), 12u);
}

TEST(DataTypes, ElementSizes) {
  EXPECT_EQ(element_size(DataType::Int8), 1u);
  EXPECT_EQ(element_size(DataType::Uint8), 1u);
  EXPECT_EQ(element_size(DataType::Int32), 4u);
  EXPECT_EQ(element_size(DataType::Uint32), 4u);
  EXPECT_EQ(element_size(DataType::Int64), 8u);
  EXPECT_EQ(element_size(DataType::Uint64), 8u);
  EXPECT_EQ(element_size(DataType::Float16), 2u);
  EXPECT_EQ(element_size(DataType::Float32), 4u);
  EXPECT_EQ(element_size(DataType::Float64), 8u);
  EXPECT_EQ(element_size(DataType::Bfloat16), 2u);
  EXPECT_EQ(element_size(DataType::Float8E4M3), 1u);
  EXPECT_EQ(element_size(DataType::Float8E5M2), 1u);
}

TEST(DataTypes, Classification) {
  int floating = 0, signed_int = 0;
  for (DataType t : all_data_types()) {
    floating += is_floating(t);
    signed_int += is_signed_integer(t);
    EXPECT_FALSE(is_floating(t) && is_signed_integer(t)) << name_of(t);
  }
  EXPECT_EQ(floating, 6);
  EXPECT_EQ(signed_int, 3);
  EXPECT_TRUE(is_floating(DataType::Float8E5M2));
  EXPECT_FALSE(is_signed_integer(DataType::Uint64));
}

TEST(RedOpNames, AcceptsNcclTestsNames) {
  EXPECT_EQ(parse_red_op("sum"), RedOp::Sum);
  EXPECT_EQ(parse_red_op("prod"), RedOp::Prod);
  EXPECT_EQ(parse_red_op("max"), RedOp::Max);
  EXPECT_EQ(parse_red_op("min"), RedOp::Min);
  EXPECT_EQ(parse_red_op("avg"), RedOp::Avg);
  EXPECT_EQ(parse_red_op("SUM"), RedOp::Sum);
}

// "none" labels the rows of copying collectives; it is not an operator one can ask for.
TEST(RedOpNames, RejectsNoneAndUnknown) {
  for (const char* bad : {"none", "", "add", "mulsum", "sum "}) {
    EXPECT_FALSE(parse_red_op(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_EQ(name_of(RedOp::None), "none");
}

TEST(RedOpNames, NameOfParsesBackForEveryReduction) {
  EXPECT_EQ(all_red_ops().size(), 5u);
  for (RedOp op : all_red_ops()) {
    EXPECT_NE(op, RedOp::None);
    EXPECT_EQ(parse_red_op(name_of(op)), op) << name_of(op);
  }
}

}  // namespace
}  // namespace commsweep
