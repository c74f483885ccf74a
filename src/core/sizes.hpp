// Message sizes: parsing "64K" style values and building the sweep's list (nccl-tests' rules).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sweep_config.hpp"

namespace commsweep {

// Bytes from "8", "8B", "64K", "1M", "8G", "1T" (powers of 1024, the letter in either case, as
// nccl-tests reads -b/-e), or the IEC spellings "64Ki", "64KiB". Throws a usage error naming
// `flag` on anything else, including negative numbers and "1GB", "100kb": the field's tables
// mean 10^9 by GB, so those are refused with a did-you-mean rather than read as 2^30.
std::uint64_t parse_size(const std::string& text, const std::string& flag);

// min, then *factor (factor > 1) or +step (factor == 1), while <= max.
std::vector<std::uint64_t> size_list(const SweepConfig& config);
// How many sizes size_list would give, without building it (a linear sweep of 1-byte steps up
// to 1T would be 2^40 of them).
std::uint64_t size_count(const SweepConfig& config);
// More sizes than any sweep needs: the option parser refuses them (-i/--stepbytes too small).
constexpr std::uint64_t kMaxSizes = 100000;

// "1 KiB"-free compact form for messages: 1048576 -> "1M", 1000 -> "1000".
std::string compact_size(std::uint64_t bytes);
// A size for people, in the powers of 1024 sizes are typed in, with their IEC names (so never
// "TB", which reads as 10^12): "8 TiB", "23.1 GiB", "1000 B".
std::string binary_size_text(std::uint64_t bytes);

}  // namespace commsweep
