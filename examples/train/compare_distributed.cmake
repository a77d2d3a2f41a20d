# Driver of example.train.distributed (cmake -P): the training program on one
# process with --batch 32, then under MPIRUN (2 ranks) with --distributed
# --batch 16; both must print the same cross-validation losses and Test MSE
# (1e-4 relative: the same arithmetic, summed in another order).
# Takes TRAIN, MPIRUN (a ;-list ending in "-np 2") and OUT.
function(run out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PLEXUS_DEVICE=cpu ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the training program failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "validation loss ([0-9.]+)\nTest MSE: ([0-9.]+)")
    message(FATAL_ERROR "no losses in the output of ${ARGN}:\n${out}\n${err}")
  endif()
  set(${out_var} "${CMAKE_MATCH_1};${CMAKE_MATCH_2}" PARENT_SCOPE)
  message("${out}")
endfunction()

run(single ${TRAIN} --epochs 5 --batch 32 --out ${OUT}/single)
run(ranks ${MPIRUN} ${TRAIN} --distributed --epochs 5 --batch 16 --out ${OUT}/ranks)
foreach(i 0 1)
  list(GET single ${i} a)
  list(GET ranks ${i} b)
  execute_process(COMMAND awk "BEGIN { a = ${a}; b = ${b}; d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4 * a) }"
                  RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    message(FATAL_ERROR "2 ranks with batch 16 and 1 process with batch 32 disagree: ${b} vs ${a}")
  endif()
endforeach()
message("2 ranks x batch 16 = 1 process x batch 32: validation loss ${single}")
