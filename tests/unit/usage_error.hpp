// Checks for the usage errors of the command line: the right type, the right kind (exit code
// 2), and a message that names the flag so that the user knows what to fix.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/error.hpp"

namespace commsweep::testing {

// Passes when `run` throws a commsweep::Error of kind Usage whose message holds every word.
template <class Run>
::testing::AssertionResult throws_usage(Run&& run, std::initializer_list<std::string> words) {
  try {
    run();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Usage) {
      return ::testing::AssertionFailure() << "kind is " << name_of(e.kind()) << ": " << e.what();
    }
    if (e.exit_code() != exit_code::kUsage) {
      return ::testing::AssertionFailure() << "exit code " << e.exit_code() << ": " << e.what();
    }
    const std::string message = e.what();
    for (const auto& word : words) {
      if (message.find(word) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks '" << word << "': " << message;
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not a commsweep::Error: " << e.what();
  }
  return ::testing::AssertionFailure() << "nothing was thrown";
}

}  // namespace commsweep::testing
