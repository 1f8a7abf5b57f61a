# One helper registers an MPI test binary at several rank counts, so every distributed
# test runs at 1, 2 and 4 ranks without repeating itself. Rank counts above the core count
# oversubscribe on purpose: these tests check correctness, never timing.
set(LBBENCH_MPIEXEC_FLAGS --oversubscribe)
execute_process(COMMAND id -u OUTPUT_VARIABLE _lbbench_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(_lbbench_uid STREQUAL "0")
  list(APPEND LBBENCH_MPIEXEC_FLAGS --allow-run-as-root)
endif()

function(lbbench_add_mpi_test target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "RANKS" ${ARGN})
  if(NOT ARG_RANKS)
    set(ARG_RANKS 1 2 4)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  foreach(n IN LISTS ARG_RANKS)
    set(name ${target}.np${n})
    add_test(NAME ${name}
      COMMAND ${MPIEXEC_EXECUTABLE} ${LBBENCH_MPIEXEC_FLAGS} ${MPIEXEC_NUMPROC_FLAG} ${n}
              $<TARGET_FILE:${target}>)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} PROCESSORS ${n}
      LABELS "mpi" ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
