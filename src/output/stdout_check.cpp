#include "output/stdout_check.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <unistd.h>

#include "core/exit_codes.hpp"

namespace commsweep::output {

int finish_standard_output(int rc, int failure_code) {
  errno = 0;
  std::cout.flush();
  int error = errno;
  bool lost = std::cout.fail() || std::ferror(stdout) != 0;
  errno = 0;
  if (std::fflush(stdout) != 0) {
    lost = true;
    error = errno;
  }
  if (!lost) return rc;
  if (error == 0) {
    // The failed write was an earlier one (its errno long gone): one more byte finds the reason
    // (ENOSPC, EPIPE, EIO); what reached the output is already cut short.
    if (write(STDOUT_FILENO, "\n", 1) < 0) error = errno;
  }
  std::fprintf(stderr, "commsweep: write error on standard output%s%s\n", error != 0 ? ": " : "",
               error != 0 ? std::strerror(error) : "");
  std::fflush(stderr);
  return combined_exit(rc, failure_code);
}

}  // namespace commsweep::output
