# Bakes `git describe` into the binary at every build (not only at configure time), so a
# record's provenance names the commit that produced it.
set(LBBENCH_VERSION_CPP ${PROJECT_BINARY_DIR}/generated/version.cpp)
add_custom_target(lbbench_version_stamp
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUT=${LBBENCH_VERSION_CPP}
          -DFALLBACK=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${LBBENCH_VERSION_CPP}
  COMMENT "Stamping git describe")
