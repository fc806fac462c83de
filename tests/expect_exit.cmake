# Run CMD with ARGS and fail unless it exits with EXPECT. Where MATCH is set, stdout and stderr
# together must match it (and, where FAIL is set, must not match FAIL); otherwise the command must say
# why on stderr (the CLI's exit-code contract for bad input). ARGS is a CMake list: no argument may
# hold a semicolon.
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED MATCH)
  if(NOT "${out}${err}" MATCHES "${MATCH}")
    message(FATAL_ERROR "the output does not match '${MATCH}'\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT "${FAIL}" STREQUAL "" AND "${out}${err}" MATCHES "${FAIL}")
    message(FATAL_ERROR "the output matches '${FAIL}'\nstdout: ${out}\nstderr: ${err}")
  endif()
elseif(err STREQUAL "")
  message(FATAL_ERROR "expected an error message on stderr, got none")
endif()
message(STATUS "exit code ${rc} as expected; stdout: ${out}\nstderr: ${err}")
