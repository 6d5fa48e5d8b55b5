#===- RuntimeOnly.cmake - the runtime-only C program, end to end -*- cmake -*-===//
#
# cmake -DTEST=... -DNNC_RUN=... -DMODEL=add.mlir -DTRAIN_MODEL=model.onnx
#       -DTRAIN_DATA=data.npz -DDIR=... -P RuntimeOnly.cmake
#
# The test program writes the inputs, nnc-run compiles MODEL on them (with
# libnnc), saving the executable and its outputs, and the test program,
# linked against libnnc_runtime alone, loads and runs the executable and
# compares. Then nnc-run trains TRAIN_MODEL for 2 steps, saving the trainer
# and a checkpoint, and for 4 steps, saving the parameters; the test program
# continues the saved trainer for 2 steps and compares.
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

file(COPY_FILE ${TRAIN_DATA} ${DIR}/data.npz)
set(TRAIN ${NNC_RUN} train ${TRAIN_MODEL} --data ${DIR}/data.npz --no-shuffle
    --batch-size 8 --cache-dir= --quiet)
step(${TRAIN} --steps 2 --eval ${DIR}/data.npz --eval-batch-size 8
     --checkpoint ${DIR}/ckpt2.npz --save-trainer ${DIR}/trainer.nncx)
step(${TRAIN} --steps 4 --save-params ${DIR}/params4.npz)
step(${TEST} train ${DIR})
