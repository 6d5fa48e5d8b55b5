#===- CheckLinks.cmake - what runtime-only binaries link ------*- cmake -*-===//
#
# cmake "-DRUNTIME_ONLY=bin1;lib2;..." -DLIBNNC=libnnc.so -P CheckLinks.cmake
#
# Every file of RUNTIME_ONLY must need, directly (readelf -d NEEDED) and
# transitively (ldd), no MLIR, no LLVM and no libnnc.so. LIBNNC must need
# libnnc_runtime.so and hold no runtime of its own: the profiler's event
# buffer, the CPU device and the other process-wide state of the runtime
# must exist once in a process that loads both libraries.
#
#===----------------------------------------------------------------------===//

find_program(READELF readelf REQUIRED)
find_program(LDD ldd REQUIRED)
find_program(NM nm REQUIRED)

set(forbidden "libMLIR|libLLVM|libnnc\\.so|liblld|libprotobuf|libonnx")

function(run_tool out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE text
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(failures "")
foreach(file ${RUNTIME_ONLY})
  run_tool(dynamic ${READELF} -d ${file})
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
  message(STATUS "${file} NEEDED:\n  ${needed}")
  foreach(entry ${needed})
    if(entry MATCHES "${forbidden}")
      list(APPEND failures "${file} needs ${entry}")
    endif()
  endforeach()
  run_tool(loaded ${LDD} ${file})
  message(STATUS "ldd ${file}:\n${loaded}")
  if(loaded MATCHES "not found")
    list(APPEND failures "${file} has a library ldd cannot find")
  endif()
  string(REGEX MATCHALL "[^\n]*(${forbidden})[^\n]*" bad "${loaded}")
  if(bad)
    list(APPEND failures "${file} loads ${bad}")
  endif()
endforeach()

run_tool(dynamic ${READELF} -d ${LIBNNC})
if(NOT dynamic MATCHES "\\(NEEDED\\)[^\n]*\\[libnnc_runtime\\.so\\]")
  list(APPEND failures "${LIBNNC} does not need libnnc_runtime.so")
endif()
# The runtime's state lives behind these functions; a static copy of the
# runtime inside libnnc would define them there too.
run_tool(symbols ${NM} -C --defined-only ${LIBNNC})
foreach(symbol "nnc::runtime::Profiler::global()"
               "nnc::runtime::getCpuDevice()"
               "nnc::runtime::Program::load("
               "nnc_tensor_create" "nnc_profiler_start")
  string(FIND "${symbols}" " ${symbol}" at)
  if(NOT at EQUAL -1)
    list(APPEND failures "${LIBNNC} defines ${symbol}")
  endif()
endforeach()

if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  message(FATAL_ERROR "runtime-only links:\n  ${failures}")
endif()
