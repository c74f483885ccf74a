# The git hash travels into every result's provenance. commsweep_git_hash(OUT SOURCE_DIR): the
# commit checked out, 12 hex digits, with "-dirty" when tracked files differ from it (a result
# measured with uncommitted changes says so); "unknown" outside a git checkout. Used here, at
# configure time, for the summary line, and by WriteVersion.cmake at every build.
function(commsweep_git_hash out source_dir)
  set(hash "unknown")
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                    WORKING_DIRECTORY "${source_dir}"
                    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND head)
      set(hash "${head}")
      execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                      WORKING_DIRECTORY "${source_dir}"
                      OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE
                      RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND changes)
        set(hash "${head}-dirty")
      endif()
    endif()
  endif()
  set(${out} "${hash}" PARENT_SCOPE)
endfunction()

if(NOT CMAKE_SCRIPT_MODE_FILE)
  commsweep_git_hash(COMMSWEEP_GIT_HASH "${CMAKE_CURRENT_SOURCE_DIR}")
endif()
