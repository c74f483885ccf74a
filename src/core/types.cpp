#include "core/types.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace commsweep {
namespace {

struct TypeInfo {
  DataType type;
  std::string_view name;
  std::size_t size;
  std::array<std::string_view, 3> aliases;
};

constexpr std::array<TypeInfo, 12> kTypes{{
    {DataType::Int8, "int8", 1, {"char", "i8", ""}},
    {DataType::Uint8, "uint8", 1, {"u8", "", ""}},
    {DataType::Int32, "int32", 4, {"int", "i32", ""}},
    {DataType::Uint32, "uint32", 4, {"u32", "", ""}},
    {DataType::Int64, "int64", 8, {"i64", "", ""}},
    {DataType::Uint64, "uint64", 8, {"u64", "", ""}},
    {DataType::Float16, "half", 2, {"fp16", "float16", "f16"}},
    {DataType::Float32, "float", 4, {"fp32", "float32", "f32"}},
    {DataType::Float64, "double", 8, {"fp64", "float64", "f64"}},
    {DataType::Bfloat16, "bfloat16", 2, {"bf16", "", ""}},
    {DataType::Float8E4M3, "f8e4m3", 1, {"fp8_e4m3", "e4m3", "fp8"}},
    {DataType::Float8E5M2, "f8e5m2", 1, {"fp8_e5m2", "e5m2", ""}},
}};

constexpr std::array<std::string_view, 6> kOpNames{"sum", "prod", "max", "min", "avg", "none"};

const TypeInfo& info(DataType t) { return kTypes[static_cast<std::size_t>(t)]; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::size_t element_size(DataType t) { return info(t).size; }

bool is_floating(DataType t) {
  switch (t) {
    case DataType::Float16: case DataType::Float32: case DataType::Float64:
    case DataType::Bfloat16: case DataType::Float8E4M3: case DataType::Float8E5M2:
      return true;
    default:
      return false;
  }
}

bool is_signed_integer(DataType t) {
  return t == DataType::Int8 || t == DataType::Int32 || t == DataType::Int64;
}

std::string_view name_of(DataType t) { return info(t).name; }
std::string_view name_of(RedOp op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::optional<DataType> parse_data_type(std::string_view text) {
  const std::string s = lower(text);
  for (const auto& t : kTypes) {
    if (s == t.name) return t.type;
    for (auto alias : t.aliases) {
      if (!alias.empty() && s == alias) return t.type;
    }
  }
  return std::nullopt;
}

std::optional<RedOp> parse_red_op(std::string_view text) {
  const std::string s = lower(text);
  for (std::size_t i = 0; i + 1 < kOpNames.size(); ++i) {  // "none" is not a user choice
    if (s == kOpNames[i]) return static_cast<RedOp>(i);
  }
  return std::nullopt;
}

const std::vector<DataType>& all_data_types() {
  static const std::vector<DataType> types = [] {
    std::vector<DataType> v;
    for (const auto& t : kTypes) v.push_back(t.type);
    return v;
  }();
  return types;
}

const std::vector<RedOp>& all_red_ops() {
  static const std::vector<RedOp> ops{RedOp::Sum, RedOp::Prod, RedOp::Max, RedOp::Min, RedOp::Avg};
  return ops;
}

}  // namespace commsweep
