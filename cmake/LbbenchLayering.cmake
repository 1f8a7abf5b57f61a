# The layering the code relies on, checked when the project is configured: the libraries
# that parse scenarios, hold records and run the harness must not reach MPI or a
# partitioner, not even through another library. A link that breaks this fails the
# configure step with the path that reached the forbidden library.

# Every library `target` links, directly or through others, as "a -> b -> c" chains.
function(_lbbench_link_closure target chain out_var)
  set(found "")
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(items ${target} ${property})
    if(NOT items)
      continue()
    endif()
    foreach(item IN LISTS items)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
      if(item MATCHES "^\\$<" OR item STREQUAL "")
        continue()
      endif()
      list(APPEND found "${chain} -> ${item}")
      if(TARGET ${item} AND NOT "${chain}" MATCHES " ${item}( |$)")
        get_target_property(aliased ${item} ALIASED_TARGET)
        if(aliased)
          set(item ${aliased})
        endif()
        _lbbench_link_closure(${item} "${chain} -> ${item}" deeper)
        list(APPEND found ${deeper})
      endif()
    endforeach()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Fails unless `target` reaches none of the `FORBIDDEN` libraries.
function(lbbench_forbid_links target)
  cmake_parse_arguments(ARG "" "" "FORBIDDEN" ${ARGN})
  _lbbench_link_closure(${target} "${target}" chains)
  foreach(chain IN LISTS chains)
    foreach(forbidden IN LISTS ARG_FORBIDDEN)
      if(chain MATCHES "-> ${forbidden}$")
        message(FATAL_ERROR "lbbench layering: ${target} must not link ${forbidden}, but: ${chain}")
      endif()
    endforeach()
  endforeach()
endfunction()
