# Finds NCCL's header and library. Where NCCL_ROOT or NCCL_HOME is set (CMake variable or
# environment), there only: the folder of an NCCL install (include/nccl.h, lib/libnccl.so.2), or
# of an unpacked nvidia-nccl-cu13 wheel (nvidia/nccl/include, nvidia/nccl/lib), or its
# nvidia/nccl folder. Otherwise beside the CUDA toolkit, then in the system paths.
# Defines NCCL_FOUND, NCCL_VERSION, NCCL_VERSION_CODE (22809 for 2.28.9: the sources that use
# NCCL's structures check that the nccl.h they include is this one, since another NCCL's headers
# may come first on the include path: the CUDA toolkit's include folder holds one too),
# NCCL_INCLUDE_DIR, NCCL_LIBRARY and the target NCCL::NCCL.
set(_nccl_roots)
foreach(_var NCCL_ROOT NCCL_HOME)
  if(DEFINED ${_var} AND NOT "${${_var}}" STREQUAL "")
    list(APPEND _nccl_roots "${${_var}}")
  endif()
  if(DEFINED ENV{${_var}} AND NOT "$ENV{${_var}}" STREQUAL "")
    list(APPEND _nccl_roots "$ENV{${_var}}")
  endif()
endforeach()

if(_nccl_roots)
  # NCCL_ROOT says which NCCL: never another one found beside CUDA or in the system paths.
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_roots} PATH_SUFFIXES include nvidia/nccl/include
            NO_DEFAULT_PATH)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_nccl_roots}
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu nvidia/nccl/lib NO_DEFAULT_PATH)
else()
  set(_nccl_hints)
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
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_nccl_hints}
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
endif()

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_l ${_nccl_lines})
    if(_l MATCHES "^#define NCCL_(MAJOR|MINOR|PATCH) +([0-9]+)")
      set(_nccl_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
  # nccl.h's NCCL_VERSION_CODE for 2.9 and later: major * 10000 + minor * 100 + patch.
  math(EXPR NCCL_VERSION_CODE "${_nccl_MAJOR} * 10000 + ${_nccl_MINOR} * 100 + ${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_INCLUDE_DIR NCCL_LIBRARY
                                  VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  if(_nccl_roots)
    # -I, not -isystem: NCCL_ROOT's nccl.h must come before the one in the CUDA toolkit's
    # include folder, which CUDA::cudart brings as -isystem (and -I goes first).
    set_target_properties(NCCL::NCCL PROPERTIES SYSTEM OFF)
  endif()
endif()
