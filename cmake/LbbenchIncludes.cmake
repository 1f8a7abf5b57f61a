# The folders' layering, checked on every build from the sources' #include lines: each
# folder may include only folders listed before it here. The order is a layering, so no
# include runs up and no two folders include each other. Run as a script:
#   cmake -DLBBENCH_SOURCE_DIR=<tree> -P cmake/LbbenchIncludes.cmake
# It fails, naming the file, the line and both folders, on an include that runs up, and on
# a source folder the table does not place.

set(LBBENCH_LAYERS
    # Core types, then the MPI helpers, then plain machine presets and their network model.
    benchmark/core
    benchmark/comm
    benchmark/machine
    # Meshes: recorded runs, the distributed graph's builders, block meshes that regrid, the
    # generators and readers.
    meshes/trace
    meshes
    meshes/octree
    meshes/readers
    meshes/generators
    # Balancers: the SDK a strategy is written against, one folder per family, and the
    # registry that names them all (the families see only the SDK).
    balancers/sdk
    balancers/reorder
    balancers/global
    balancers/diffusive
    balancers/tree
    balancers/gossip
    balancers/prefix
    balancers/vector
    balancers/model
    balancers/model/auto
    balancers
    # Strategies written as users write them, against the SDK alone.
    balancers/template
    balancers/examples
    # Plain data over those: scenarios, records, and the engines as data (what each can
    # run, the memory a run needs, how a run is handed to one).
    benchmark/scenario
    benchmark/record
    benchmark/engines
    # The replay (one step loop, the LB calls, migration, the record's filling) and the
    # engines that run it behind its Engine seam.
    benchmark/workload
    benchmark/replay
    benchmark/engines/mpi
    benchmark/engines/smpi
    benchmark/engines/model
    # On top: the harness, the command line, the micro-benchmarks.
    harness
    benchmark/app
    benchmark/micro)

if(NOT LBBENCH_SOURCE_DIR)
  message(FATAL_ERROR "lbbench layering: give -DLBBENCH_SOURCE_DIR=<source tree>")
endif()

# A folder's place in the table, or -1.
function(_lbbench_layer folder out_var)
  list(FIND LBBENCH_LAYERS "${folder}" index)
  set(${out_var} ${index} PARENT_SCOPE)
endfunction()

# The source folder an include names, as the compiler finds it: from the tree's root, from
# benchmark/, or beside the including file. Empty when it is none of the tree's.
function(_lbbench_included_folder header from_dir out_var)
  set(found "")
  foreach(base "${LBBENCH_SOURCE_DIR}" "${LBBENCH_SOURCE_DIR}/benchmark" "${from_dir}")
    if(EXISTS "${base}/${header}")
      get_filename_component(path "${base}/${header}" ABSOLUTE)
      get_filename_component(dir "${path}" DIRECTORY)
      file(RELATIVE_PATH found "${LBBENCH_SOURCE_DIR}" "${dir}")
      break()
    endif()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

set(problems "")
foreach(top benchmark balancers meshes harness)
  file(GLOB_RECURSE sources RELATIVE "${LBBENCH_SOURCE_DIR}" "${LBBENCH_SOURCE_DIR}/${top}/*.cpp"
       "${LBBENCH_SOURCE_DIR}/${top}/*.hpp" "${LBBENCH_SOURCE_DIR}/${top}/*.h")
  foreach(source IN LISTS sources)
    get_filename_component(folder "${source}" DIRECTORY)
    _lbbench_layer("${folder}" mine)
    if(mine EQUAL -1)
      list(APPEND problems "${source}: its folder ${folder} has no place in the layers (cmake/LbbenchIncludes.cmake)")
      continue()
    endif()
    file(STRINGS "${LBBENCH_SOURCE_DIR}/${source}" lines)
    set(number 0)
    foreach(line IN LISTS lines)
      math(EXPR number "${number} + 1")
      if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
        continue()
      endif()
      _lbbench_included_folder("${CMAKE_MATCH_1}" "${LBBENCH_SOURCE_DIR}/${folder}" theirs_folder)
      if(theirs_folder STREQUAL "" OR theirs_folder STREQUAL folder)
        continue()
      endif()
      _lbbench_layer("${theirs_folder}" theirs)
      if(theirs EQUAL -1 OR theirs GREATER mine)
        list(APPEND problems "${source}:${number}: ${folder} includes ${theirs_folder}, which is not below it")
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "lbbench layering: an include runs up a layer\n  ${text}")
endif()
