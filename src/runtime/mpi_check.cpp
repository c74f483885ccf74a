#include "runtime/mpi_check.hpp"

namespace commsweep::detail {

void throw_mpi(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorKind::Mpi, std::string(call) + " failed: " + std::string(text, length), call,
              file, line);
}

}  // namespace commsweep::detail
