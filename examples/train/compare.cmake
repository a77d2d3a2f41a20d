# Driver of the example.train.<device> tests (cmake -P): runs the training
# program on the cpu and on DEVICE with the same seed and epochs, and fails
# unless both print a Test MSE and they agree within TOLERANCE (relative).
# Exits 77 (skipped) when DEVICE is not available. Takes TRAIN, DEVICE,
# TOLERANCE and OUT, and EXTRA: more arguments for the run on DEVICE
# (--compile: the compiled training step against the eager cpu run).
function(run_on device out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PLEXUS_DEVICE=${device}
                          ${TRAIN} --epochs 5 --out ${OUT}/${device} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 77)
    message("${device} is not available here: skipped\n${err}")
    # cmake -P cannot exit with 77; the test's SKIP_REGULAR_EXPRESSION matches this.
    message("PLEXUS_SKIP")
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the training program failed on ${device} (${rc}):\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "Test MSE: ([0-9.]+)")
    message(FATAL_ERROR "no Test MSE in the output on ${device}:\n${out}")
  endif()
  set(mse ${CMAKE_MATCH_1})
  if(ARGN MATCHES "--compile" AND NOT out MATCHES "compiled steps: [1-9][0-9]* replayed, [0-9]+ captured, 0 eager")
    message(FATAL_ERROR "the compiled run on ${device} did not replay every step:\n${out}\n${err}")
  endif()
  set(${out_var} ${mse} PARENT_SCOPE)
  message("${device} ${ARGN}: Test MSE ${mse}")
endfunction()

run_on(cpu on_cpu)
separate_arguments(extra UNIX_COMMAND "${EXTRA}")
run_on(${DEVICE} on_device ${extra})
if(on_device STREQUAL "")
  return()
endif()
# |a - b| <= TOLERANCE * a (CMake's math has no floats: awk compares).
execute_process(COMMAND awk "BEGIN { a = ${on_cpu}; b = ${on_device}; d = a - b; if (d < 0) d = -d; exit !(d <= ${TOLERANCE} * a) }"
                RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "${DEVICE} and the cpu disagree: Test MSE ${on_device} vs ${on_cpu} "
                      "(tolerance ${TOLERANCE} relative)")
endif()
