# Run at build time (not configure time) so that the commit recorded in benchmark provenance is
# the one that was built. configure_file rewrites the output only when its content changes.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD
  OUTPUT_VARIABLE KQCD_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR KQCD_GIT_COMMIT STREQUAL "")
  set(KQCD_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    string(APPEND KQCD_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${SOURCE_DIR}/cmake/git_info.cpp.in ${OUTPUT} @ONLY)
