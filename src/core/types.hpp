// Element types and reduction operators as the sweeps name them (nccl-tests' names).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commsweep {

enum class DataType : std::uint8_t {
  Int8, Uint8, Int32, Uint32, Int64, Uint64,
  Float16, Float32, Float64, Bfloat16, Float8E4M3, Float8E5M2,
};

enum class RedOp : std::uint8_t { Sum, Prod, Max, Min, Avg, None };

std::size_t element_size(DataType t);
bool is_floating(DataType t);
bool is_signed_integer(DataType t);
// nccl-tests' spelling: int8 ... half float double bfloat16 f8e4m3 f8e5m2.
std::string_view name_of(DataType t);
std::string_view name_of(RedOp op);
// Accepts nccl-tests' names and the common aliases (bf16, fp16, fp32, fp64, fp8_e4m3, ...).
std::optional<DataType> parse_data_type(std::string_view text);
std::optional<RedOp> parse_red_op(std::string_view text);
const std::vector<DataType>& all_data_types();
const std::vector<RedOp>& all_red_ops();  // the reductions, without None

}  // namespace commsweep
