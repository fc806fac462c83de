# Run CMD with ARGS and fail unless it exits with EXPECT (used for the CLI's exit-code contract).
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(err STREQUAL "")
  message(FATAL_ERROR "expected an error message on stderr, got none")
endif()
message(STATUS "exit code ${rc} as expected; stderr: ${err}")
