#===- InstallConsumer.cmake - find_package(nnc) from an install -*- cmake -*-===//
#
# cmake -DBUILD=<nnc build tree> -DSOURCE=<consumer project> -DDIR=<scratch>
#       -DGENERATOR=<generator> -DC_COMPILER=<cc> [-DC_FLAGS=<flags>]
#       -P InstallConsumer.cmake
#
# Installs the build into DIR/prefix, configures and builds the consumer
# project against it with find_package(nnc), runs both of its programs, and
# runs the installed nnc-run on what they made: compiling (libnnc opened
# beside libnnc_runtime in the install tree) and running the .nncx.
#
#===----------------------------------------------------------------------===//

file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR}/work)
set(prefix ${DIR}/prefix)

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
foreach(file include/nnc-c/runtime.h include/nnc-c/compiler.h
             include/nnc-c/nnc.h lib/cmake/nnc/nncConfig.cmake
             lib/cmake/nnc/nncConfigVersion.cmake lib/libnnc_runtime.so
             lib/libnnc.so bin/nnc-run)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install has no ${file}")
  endif()
endforeach()

step(${CMAKE_COMMAND} -S ${SOURCE} -B ${DIR}/consumer -G ${GENERATOR}
     -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
     "-DCMAKE_C_FLAGS=${C_FLAGS}")
step(${CMAKE_COMMAND} --build ${DIR}/consumer)
step(${DIR}/consumer/compiler_consumer ${DIR}/work/add.nncx)
step(${DIR}/consumer/runtime_consumer ${DIR}/work/add.nncx ${DIR}/work)

# The installed nnc-run runs the executable with the runtime alone, and
# compiles through the libnnc installed beside it.
step(${prefix}/bin/nnc-run ${DIR}/work/add.nncx --input x=${DIR}/work/x.npy
     --input b=${DIR}/work/b.npy)
if(NOT step_output MATCHES "= \\[10, 21, 32, 13, 24, 35\\]")
  message(FATAL_ERROR "nnc-run on the .nncx printed ${step_output}")
endif()
file(WRITE ${DIR}/work/add.mlir
  "func.func @main(%x: tensor<2x3xf32> loc(\"x\"), %b: tensor<3xf32> loc(\"b\"))\n"
  "    -> tensor<2x3xf32> {\n"
  "  %0 = nnc.add %x, %b : tensor<2x3xf32>, tensor<3xf32>\n"
  "  return %0 : tensor<2x3xf32>\n"
  "}\n")
step(${prefix}/bin/nnc-run ${DIR}/work/add.mlir --cache-dir=
     --input x=${DIR}/work/x.npy --input b=${DIR}/work/b.npy)
if(NOT step_output MATCHES "= \\[10, 21, 32, 13, 24, 35\\]")
  message(FATAL_ERROR "nnc-run on the .mlir printed ${step_output}")
endif()
