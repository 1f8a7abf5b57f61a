# `cmake --install build --prefix P`: both binaries, the balancer SDK's headers, a CMake
# package (find_package(lbbench): lbbench::sdk and lbbench_add_balancer), the strategy
# template, the machine presets, the scenarios and the harness's scripts. The installed
# tree works from any folder: the binaries find the presets beside themselves
# (P/share/lbbench/machines).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LBBENCH_INSTALL_BIN_DIR ${CMAKE_INSTALL_BINDIR})
set(LBBENCH_INSTALL_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/lbbench)
set(LBBENCH_INSTALL_DATA_DIR ${CMAKE_INSTALL_DATADIR}/lbbench)
set(LBBENCH_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lbbench)

# The SDK in this tree, for the examples and the tests: the same headers, found where they
# are kept, and as <lbbench/...> through links laid out as the installed tree is.
set(LBBENCH_SDK_TREE ${PROJECT_BINARY_DIR}/sdk-include)
file(MAKE_DIRECTORY ${LBBENCH_SDK_TREE}/lbbench)
foreach(link balancers:balancers core:benchmark/core comm:benchmark/comm)
  string(REPLACE ":" ";" parts ${link})
  list(GET parts 0 name)
  list(GET parts 1 target)
  if(NOT EXISTS ${LBBENCH_SDK_TREE}/lbbench/${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${target} ${LBBENCH_SDK_TREE}/lbbench/${name} SYMBOLIC)
  endif()
endforeach()
add_library(lbbench_sdk INTERFACE)
target_include_directories(lbbench_sdk INTERFACE ${LBBENCH_SDK_TREE} ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/benchmark)
target_include_directories(lbbench_sdk SYSTEM INTERFACE $<TARGET_PROPERTY:MPI::MPI_CXX,INTERFACE_INCLUDE_DIRECTORIES>)
# MPI's C API only: the C++ bindings are deprecated and warn.
target_compile_definitions(lbbench_sdk INTERFACE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
target_compile_features(lbbench_sdk INTERFACE cxx_std_20)
target_link_libraries(lbbench_sdk INTERFACE nlohmann_json::nlohmann_json)
set_target_properties(lbbench_sdk PROPERTIES LBBENCH_SDK_INCLUDE_DIR
                                             "${LBBENCH_SDK_TREE};${PROJECT_SOURCE_DIR};${PROJECT_SOURCE_DIR}/benchmark")
add_library(lbbench::sdk ALIAS lbbench_sdk)
include(LbbenchAddBalancer)

if(LBBENCH_SMPI)
  return()  # the sub-build's binary is installed by the main build
endif()

install(TARGETS lbbench RUNTIME DESTINATION ${LBBENCH_INSTALL_BIN_DIR})
install(PROGRAMS ${PROJECT_BINARY_DIR}/lbbench-smpi DESTINATION ${LBBENCH_INSTALL_BIN_DIR} OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/balancers/sdk DESTINATION ${LBBENCH_INSTALL_INCLUDE_DIR}/balancers
        FILES_MATCHING PATTERN "*.hpp")
foreach(folder core comm)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/benchmark/${folder} DESTINATION ${LBBENCH_INSTALL_INCLUDE_DIR}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/balancers/template/ DESTINATION ${LBBENCH_INSTALL_DATA_DIR}/balancer-template)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/machines/ DESTINATION ${LBBENCH_INSTALL_DATA_DIR}/machines
        FILES_MATCHING PATTERN "*.yaml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${LBBENCH_INSTALL_DATA_DIR}/scenarios
        PATTERN "machines" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/harness/plot.py ${PROJECT_SOURCE_DIR}/harness/runs.py
        DESTINATION ${LBBENCH_INSTALL_DATA_DIR}/harness)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lbbenchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/lbbenchConfig.cmake
                              INSTALL_DESTINATION ${LBBENCH_INSTALL_PACKAGE_DIR}
                              PATH_VARS LBBENCH_INSTALL_INCLUDE_DIR LBBENCH_INSTALL_BIN_DIR LBBENCH_INSTALL_DATA_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/lbbenchConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/lbbenchConfig.cmake ${PROJECT_BINARY_DIR}/package/lbbenchConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/LbbenchAddBalancer.cmake
        DESTINATION ${LBBENCH_INSTALL_PACKAGE_DIR})
