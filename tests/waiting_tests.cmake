# The tests whose time is mostly a bounded wait: a watchdog's deadline, a signal sent at a
# moment, a worker's death to be noticed, a memory limit's refusal. Their ranks sleep in the
# World's polling waits (runtime/world.cpp), so they declare PROCESSORS 1 whatever their rank
# count, where their ranks' count would make ctest run each alone and leave the cores idle.
# The scripts run ctest with -j one more than the cores (scripts/common.sh, ctest_jobs), so that
# one of these waits beside a test that computes. COST (their seconds on 2 idle cores) starts
# them first, under the other tests, on a clone with no ctest timings yet (CI's).
# Measured on 2 cores, user + system CPU over wall time (/usr/bin/time around ctest -R): the
# signal and hang tests 0.3-3.6 s of 10-60 s, the faults script 16 s of 78 s; e2e's worker
# deaths and SIGTERM 2-6 s of 8-15 s. A test that computes most of its time stays off this list.
set(COMMSWEEP_WAITING_TESTS
  "faults.gpu_faults_script_on_mpi 78"
  "mpi.job.sigint-moments 61"
  "mpi.fault.oom-ulimit 16"
  "mpi.fabric.run-flags 15"
  "e2e.sigterm 15"
  "e2e.mpijob_worker_dies 13"
  "e2e.worker_dies 13"
  "mpi.job.sigterm-suite 12"
  "mpi.job.sigterm-setup 10"
  "mpi.fault.kept-timeout 9"
  "mpi.np4.fault.never_join 9"
  "mpi.np3.fault.hang_in_collective 9"
  "mpi.np3.fault.hang_release 8"
  "e2e.mpijob_worker_never_starts 8"
  "e2e.worker_never_starts 8"
  "mpi.job.sigterm 7"
  "mpi.job.sigterm-singleton 7")
# Applies the list to the tests of the calling directory (set_tests_properties reaches only
# those before CMake 3.28): tests/mpi and tests/e2e call it after their last add_test.
function(commsweep_mark_waiting_tests)
  foreach(entry IN LISTS COMMSWEEP_WAITING_TESTS)
    separate_arguments(parts UNIX_COMMAND "${entry}")
    list(GET parts 0 name)
    list(GET parts 1 seconds)
    if(TEST ${name})
      set_tests_properties(${name} PROPERTIES PROCESSORS 1 COST ${seconds})
      set_property(GLOBAL APPEND PROPERTY COMMSWEEP_WAITING_MARKED ${name})
    endif()
  endforeach()
endfunction()

# Called by tests/CMakeLists.txt after every directory: an entry no directory marked is said
# (renamed? the list must follow it; or not defined in this configuration: no MPI, say).
function(commsweep_report_unmarked_waiting_tests)
  get_property(marked GLOBAL PROPERTY COMMSWEEP_WAITING_MARKED)
  foreach(entry IN LISTS COMMSWEEP_WAITING_TESTS)
    separate_arguments(parts UNIX_COMMAND "${entry}")
    list(GET parts 0 name)
    if(NOT name IN_LIST marked)
      message(STATUS "tests/waiting_tests.cmake: no test ${name} in this configuration")
    endif()
  endforeach()
endfunction()
