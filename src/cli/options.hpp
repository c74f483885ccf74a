// The words of `commsweep [TEST...]` before the flags: tests (a comma list, aliases, or all), or
// a command mistyped.
#pragma once

#include <string>
#include <vector>

namespace commsweep {

// A usage Error for a word that is neither a test nor a command: the closest of both, then both
// lists ("unknown command or test 'al_reduce' (did you mean 'all_reduce'?); the commands are: ...").
void check_test_words(const std::vector<std::string>& words);

// `commsweep help [CMD]` (ARGV[1] is "help") as the arguments it stands for: `commsweep --help`,
// or `commsweep CMD --help` for a command or test CMD. A usage Error for an unknown CMD (with its
// did-you-mean) or more than one word.
std::vector<std::string> help_arguments(int argc, char** argv);

}  // namespace commsweep
