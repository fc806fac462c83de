# Run CMD with ARGS and fail unless it exits with EXPECT and says why on stderr (the CLI's exit-code
# contract); where MATCH is set, stdout and stderr together must match it.
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED MATCH)
  if(NOT "${out}${err}" MATCHES "${MATCH}")
    message(FATAL_ERROR "the output does not match '${MATCH}'\nstdout: ${out}\nstderr: ${err}")
  endif()
elseif(err STREQUAL "")
  message(FATAL_ERROR "expected an error message on stderr, got none")
endif()
message(STATUS "exit code ${rc} as expected; stdout: ${out}\nstderr: ${err}")
