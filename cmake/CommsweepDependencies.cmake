# Every dependency is looked for here, and what is missing is said in one line with the
# package that provides it (scripts/install-deps.sh installs them all).
find_package(PkgConfig REQUIRED)

function(commsweep_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "commsweep needs ${what}: install ${package} (scripts/install-deps.sh does)")
  endif()
endfunction()

find_package(MPI COMPONENTS C)
commsweep_require(MPI_C_FOUND "MPI (Open MPI)" "openmpi-bin libopenmpi-dev")
# Boost's CMake package files may lack the program_options component even where the library
# and headers are installed (seen on Ubuntu 24.04 images): fall back to those.
# COMMSWEEP_STATIC_BOOST links it statically, for a binary carried to a machine without it.
option(COMMSWEEP_STATIC_BOOST "Link Boost.Program_options statically" OFF)
if(COMMSWEEP_STATIC_BOOST)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.74 QUIET CONFIG COMPONENTS program_options)
if(NOT TARGET Boost::program_options)
  if(COMMSWEEP_STATIC_BOOST)
    find_library(BOOST_PROGRAM_OPTIONS_LIBRARY NAMES libboost_program_options.a)
  else()
    find_library(BOOST_PROGRAM_OPTIONS_LIBRARY NAMES boost_program_options)
  endif()
  find_path(BOOST_PROGRAM_OPTIONS_INCLUDE_DIR boost/program_options.hpp)
  if(BOOST_PROGRAM_OPTIONS_LIBRARY AND BOOST_PROGRAM_OPTIONS_INCLUDE_DIR)
    add_library(Boost::program_options UNKNOWN IMPORTED)
    set_target_properties(Boost::program_options PROPERTIES
      IMPORTED_LOCATION "${BOOST_PROGRAM_OPTIONS_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${BOOST_PROGRAM_OPTIONS_INCLUDE_DIR}")
    message(STATUS "Boost.Program_options: ${BOOST_PROGRAM_OPTIONS_LIBRARY}")
  endif()
endif()
if(TARGET Boost::program_options)
  set(COMMSWEEP_BOOST_PO_FOUND TRUE)
endif()
commsweep_require(COMMSWEEP_BOOST_PO_FOUND "Boost.Program_options" "libboost-program-options-dev")
find_package(nlohmann_json 3.10)
commsweep_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")
find_package(Threads REQUIRED)
pkg_check_modules(HWLOC IMPORTED_TARGET hwloc)
commsweep_require(HWLOC_FOUND "hwloc" "libhwloc-dev")
find_library(IBVERBS_LIBRARY ibverbs)
find_path(IBVERBS_INCLUDE_DIR infiniband/verbs.h)
if(IBVERBS_LIBRARY AND IBVERBS_INCLUDE_DIR)
  set(IBVERBS_FOUND TRUE)
endif()
commsweep_require(IBVERBS_FOUND "libibverbs (rdma-core)" "libibverbs-dev")

# The readers of the files users hand in: pugixml for topology XML (src/topology/xml.cpp keeps
# the policy: no DOCTYPE, no entities), yaml-cpp for suite files (src/suite/yaml_subset.cpp).
pkg_check_modules(PUGIXML IMPORTED_TARGET pugixml)
commsweep_require(PUGIXML_FOUND "pugixml" "libpugixml-dev")
pkg_check_modules(YAMLCPP IMPORTED_TARGET yaml-cpp)
commsweep_require(YAMLCPP_FOUND "yaml-cpp" "libyaml-cpp-dev")
# libseccomp builds the runtime-default filter of tests/security (the tests only).
pkg_check_modules(LIBSECCOMP IMPORTED_TARGET libseccomp)

# UCX is optional: the GPU machines have no UCX headers.
pkg_check_modules(UCX IMPORTED_TARGET ucx)
if(UCX_FOUND)
  set(COMMSWEEP_HAVE_UCX ON)
else()
  set(COMMSWEEP_HAVE_UCX OFF)
  message(STATUS "UCX not found (optional): UCX details are left out of reports")
endif()

if(COMMSWEEP_TESTS)
  find_package(GTest)
  commsweep_require(GTest_FOUND "GoogleTest" "libgtest-dev")
endif()

set(COMMSWEEP_HAVE_NCCL_BACKEND OFF)
if(COMMSWEEP_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit)
  if(NOT CMAKE_CUDA_COMPILER OR NOT CUDAToolkit_FOUND)
    message(WARNING "No CUDA toolkit (nvcc) found: building the mpi backend only. "
                    "Install the CUDA toolkit, or pass -DCOMMSWEEP_CUDA=OFF to silence this.")
  else()
    enable_language(CUDA)
    find_package(NCCL)
    if(NOT NCCL_FOUND)
      message(WARNING "CUDA found but NCCL not: building the mpi backend only. "
                      "Set NCCL_ROOT (or NCCL_HOME) to NCCL's prefix, or install libnccl-dev.")
    else()
      set(COMMSWEEP_HAVE_NCCL_BACKEND ON)
      message(STATUS "NCCL ${NCCL_VERSION}: ${NCCL_LIBRARY} (headers ${NCCL_INCLUDE_DIR})")
      message(STATUS "CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
    endif()
  endif()
else()
  message(STATUS "COMMSWEEP_CUDA=OFF: building the mpi backend only (no kernels, no nccl backend)")
endif()
