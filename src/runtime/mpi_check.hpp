#pragma once

#include <mpi.h>

#include <string>

#include "core/error.hpp"

namespace commsweep::detail {
[[noreturn]] void throw_mpi(int code, const char* call, const char* file, int line);
}

// Communicators passed to MPI calls use MPI_ERRORS_RETURN (World sets it), so failures come
// back here instead of killing the job before it can say what went wrong.
#define CS_MPI(call)                                                               \
  do {                                                                             \
    const int cs_mpi_rc_ = (call);                                                 \
    if (cs_mpi_rc_ != MPI_SUCCESS) {                                               \
      ::commsweep::detail::throw_mpi(cs_mpi_rc_, #call, __FILE__, __LINE__);       \
    }                                                                              \
  } while (0)
