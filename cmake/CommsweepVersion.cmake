# The git hash travels into every result's provenance.
find_package(Git QUIET)
set(COMMSWEEP_GIT_HASH "unknown")
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                  OUTPUT_VARIABLE _hash OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _hash)
    set(COMMSWEEP_GIT_HASH "${_hash}")
  endif()
endif()
