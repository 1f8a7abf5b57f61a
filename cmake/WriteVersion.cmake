# Script mode: writes version.cpp with `git describe`, touching it only when it changes.
execute_process(COMMAND git describe --always --dirty --tags
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE describe ERROR_QUIET
  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR describe STREQUAL "")
  set(describe "${FALLBACK}-unknown")
endif()
set(content "// Generated at build time; do not edit.\nnamespace lbbench { const char* git_describe() { return \"${describe}\"; } }\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
