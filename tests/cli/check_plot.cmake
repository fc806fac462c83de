# Runs a quick Dslash suite on two lattices, plots it with benchmarks/plot_results.py and checks
# that a non-empty PNG came out for the Wilson hopping term.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${KQCD} bench --lattices 4x4x4x4,4x4x4x8 --families dslash --operators dslash,eo --quick
                        --out ${DIR}/run.json
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kqcd bench failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${DIR}/run.json --out-dir ${DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot_results.py failed (${rc}): ${out} ${err}")
endif()
foreach(png wilson_dslash wilson_eo_operator)
  if(NOT EXISTS ${DIR}/${png}.png)
    message(FATAL_ERROR "no ${png}.png from plot_results.py: ${out}")
  endif()
  file(SIZE ${DIR}/${png}.png size)
  if(size LESS 10000)
    message(FATAL_ERROR "${png}.png is only ${size} bytes")
  endif()
endforeach()
message(STATUS "plots: ${out}")
