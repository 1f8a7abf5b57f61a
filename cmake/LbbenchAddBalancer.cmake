# lbbench_add_balancer(NAME SOURCE...): builds a strategy written against lbbench's SDK
# (balancers/sdk/plugin.hpp) into NAME.so, which `lbbench run --plugin NAME.so` loads. Where
# SimGrid's smpicxx is found it also builds NAME-smpi.so, the same code against SimGrid's
# MPI, which the smpi engine loads instead: only a strategy of the general shape, whose
# plan() calls MPI, needs it. The target needs lbbench::sdk (find_package(lbbench)).
#
# Neither library links MPI or lbbench: the SDK is header-only, and a general strategy's MPI
# calls bind to the MPI of the binary that loads it.

find_program(LBBENCH_PLUGIN_SMPICXX smpicxx)

function(lbbench_add_balancer name)
  if(NOT ARGN)
    message(FATAL_ERROR "lbbench_add_balancer(${name}): give the strategy's source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE lbbench::sdk)
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden)
  if(NOT LBBENCH_PLUGIN_SMPICXX)
    return()
  endif()
  set(sources "")
  foreach(source IN LISTS ARGN)
    get_filename_component(absolute "${source}" ABSOLUTE)
    list(APPEND sources "${absolute}")
  endforeach()
  set(variant "$<TARGET_FILE_DIR:${name}>/${name}-smpi.so")
  # The SDK's own headers only: smpicxx brings SimGrid's mpi.h.
  set(includes "$<TARGET_PROPERTY:lbbench::sdk,LBBENCH_SDK_INCLUDE_DIR>")
  add_custom_command(
    OUTPUT ${name}-smpi.stamp
    COMMAND ${LBBENCH_PLUGIN_SMPICXX} -std=c++20 -O2 -fvisibility=hidden "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
            ${sources} -o ${variant}
    COMMAND ${CMAKE_COMMAND} -E touch ${name}-smpi.stamp
    # The library built for the host's MPI follows the SDK's headers too: a change of them
    # rebuilds it, and so this variant.
    DEPENDS ${sources} $<TARGET_FILE:${name}>
    COMMENT "Building ${name}-smpi.so against SimGrid's MPI"
    COMMAND_EXPAND_LISTS VERBATIM)
  add_custom_target(${name}-smpi ALL DEPENDS ${name}-smpi.stamp)
  add_dependencies(${name}-smpi ${name})
endfunction()
