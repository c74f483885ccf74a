# Finds NCCL's header and library. Looks first where NCCL_ROOT or NCCL_HOME point (CMake
# variable or environment), then beside the CUDA toolkit, then in the system paths.
# Defines NCCL_FOUND, NCCL_VERSION, NCCL_INCLUDE_DIR, NCCL_LIBRARY and the target NCCL::NCCL.
set(_nccl_hints)
foreach(_var NCCL_ROOT NCCL_HOME)
  if(DEFINED ${_var})
    list(APPEND _nccl_hints "${${_var}}")
  endif()
  if(DEFINED ENV{${_var}})
    list(APPEND _nccl_hints "$ENV{${_var}}")
  endif()
endforeach()
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints "${CUDAToolkit_LIBRARY_ROOT}")
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(_inc ${CUDAToolkit_INCLUDE_DIRS})
    get_filename_component(_up "${_inc}" DIRECTORY)
    list(APPEND _nccl_hints "${_up}")
  endforeach()
endif()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_hints}
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_l ${_nccl_lines})
    if(_l MATCHES "^#define NCCL_(MAJOR|MINOR|PATCH) +([0-9]+)")
      set(_nccl_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_INCLUDE_DIR NCCL_LIBRARY
                                  VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
