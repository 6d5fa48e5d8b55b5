#===- RuntimeOnly.cmake - the runtime-only C program, end to end -*- cmake -*-===//
#
# cmake -DTEST=... -DNNC_RUN=... -DMODEL=add.mlir -DDIR=... -P RuntimeOnly.cmake
#
# The test program writes the inputs, nnc-run compiles MODEL on them (with
# libnnc), saving the executable and its outputs, and the test program,
# linked against libnnc_runtime alone, loads and runs the executable and
# compares.
#
#===----------------------------------------------------------------------===//

file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

step(${TEST} prepare ${DIR})
step(${NNC_RUN} ${MODEL} --input x=${DIR}/x.npy --input b=${DIR}/b.npy
     --cache-dir= --save-compiled ${DIR}/add.nncx --output ${DIR}/expected.npz)
step(${TEST} run ${DIR})
