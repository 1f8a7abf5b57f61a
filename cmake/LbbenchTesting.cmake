# One helper registers an MPI test binary at several rank counts, so every distributed
# test runs at 1, 2 and 4 ranks without repeating itself. Rank counts above the core count
# oversubscribe on purpose: these tests check correctness, never timing.
set(LBBENCH_MPIEXEC_FLAGS --oversubscribe)
execute_process(COMMAND id -u OUTPUT_VARIABLE _lbbench_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(_lbbench_uid STREQUAL "0")
  list(APPEND LBBENCH_MPIEXEC_FLAGS --allow-run-as-root)
endif()

# Open MPI keeps some of what it allocates for the life of the process; the sanitizer
# build's leak check leaves those (and only those) alone. Its components stay loaded to
# the end, and stacks are unwound slowly but whole (Open MPI's code has no frame pointers),
# so that the leak check can tell whose an allocation was.
set(LBBENCH_SANITIZER_ENV "")
if(LBBENCH_SANITIZE)
  set(LBBENCH_SANITIZER_ENV
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitize/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0;UBSAN_OPTIONS=print_stacktrace=1;OMPI_MCA_mca_base_component_disable_dlclose=1")
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
    # The sanitizer build runs the MPI tests at 1 and 2 ranks (label sanitize).
    set(labels mpi)
    if(LBBENCH_SANITIZE AND n LESS_EQUAL 2)
      list(APPEND labels sanitize)
    endif()
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} PROCESSORS ${n}
      LABELS "${labels}" ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1;${LBBENCH_SANITIZER_ENV}")
  endforeach()
endfunction()
