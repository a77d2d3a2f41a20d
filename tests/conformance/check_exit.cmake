# Runs plexus-conformance (RUNNER) with ARGS (a ;-list) and checks its exit
# status (EXPECT_RC) and that its output matches EXPECT_OUTPUT (a regex).
# Run as cmake -P with RUNNER, ARGS, EXPECT_RC, EXPECT_OUTPUT.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${RUNNER} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}:\n${out}")
endif()
if(NOT out MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "the output does not match '${EXPECT_OUTPUT}':\n${out}")
endif()
message(STATUS "exit ${rc} as expected:\n${out}")
