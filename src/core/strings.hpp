// Small text and system helpers that several folders share.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace commsweep {

// ASCII upper case (environment names, NCCL_DEBUG levels).
std::string upper_case(std::string text);

// This machine's name as gethostname(2) gives it; "unknown" when it fails.
std::string system_host_name();

// The environment variable NAME, or FALLBACK where it is unset or empty.
std::string env_or(const char* name, const std::string& fallback);

}  // namespace commsweep

namespace commsweep {

// The candidate closest to a mistyped NAME by edit distance (insertions, deletions,
// substitutions, and swaps of neighbours count one each), when it is close enough to be what
// was meant: at most 1 edit for names up to 4 letters, 2 up to 8, 3 beyond. Empty otherwise.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// VALUE printed with the printf FORMAT of one double ("%.1f%%", "%.2f GB/s", "%g").
std::string printed(const char* format, double value);
// VALUE with DIGITS decimals: "12.34".
std::string fixed(double value, int digits = 2);

// "a:b::c" split at ':' -> {a, b, "", c}: each field as written, empty ones kept (a format with
// a fixed number of fields counts them).
std::vector<std::string> split(const std::string& text, char sep);

// "a, b,,c " -> {a, b, c}: the comma lists of flags and suite values (spaces and tabs around an
// item trimmed, empty items dropped).
std::vector<std::string> split_commas(const std::string& text);

// "1 rank", "2 ranks": COUNT and the noun, plural when COUNT is not 1 (PLURAL: an irregular one).
std::string count_of(std::size_t count, const std::string& noun, const std::string& plural = "");

}  // namespace commsweep
