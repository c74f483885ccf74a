// Standard output that could not be written (a full disk, a closed pipe, an I/O error) ends
// the run with a one-line error and a non-zero exit, as coreutils' close_stdout does: a table
// the user never got is not a success.
#pragma once

namespace commsweep::output {

// Flushes std::cout and stdout. When anything written to them was lost, says so on stderr
// ("commsweep: write error on standard output: No space left on device") and returns RC and
// FAILURE_CODE combined (core/exit_codes.hpp: the one that comes first in the precedence);
// otherwise returns RC.
int finish_standard_output(int rc, int failure_code);

}  // namespace commsweep::output
