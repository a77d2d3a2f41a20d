# conformance.junit_schema: runs plexus-conformance (RUNNER) on a part of the
# suite against PLUGIN, then checks its JUnit report against junit.xsd (SCHEMA)
# with xmllint, and that the report's counts agree with the JSON report's.
# Run as cmake -P with RUNNER, PLUGIN, FILTER, SCHEMA, XMLLINT, WORK_DIR.
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY ${WORK_DIR})
set(xml ${WORK_DIR}/report.xml)
set(json ${WORK_DIR}/report.json)
file(REMOVE ${xml} ${json})
execute_process(COMMAND ${RUNNER} --plugin ${PLUGIN} --filter ${FILTER} --junit ${xml} --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
  message(FATAL_ERROR "plexus-conformance exited with ${rc}:\n${out}")
endif()
execute_process(COMMAND ${XMLLINT} --noout --schema ${SCHEMA} ${xml}
                RESULT_VARIABLE rc OUTPUT_VARIABLE lint ERROR_VARIABLE lint)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the JUnit report does not validate against ${SCHEMA}:\n${lint}")
endif()
file(READ ${json} doc)
string(JSON passed GET "${doc}" summary passed)
string(JSON failed GET "${doc}" summary failed)
string(JSON skipped GET "${doc}" summary skipped)
math(EXPR total "${passed} + ${failed} + ${skipped}")
file(READ ${xml} report)
if(NOT report MATCHES "<testsuites [^>]*tests=\"${total}\" failures=\"${failed}\" errors=\"0\" skipped=\"${skipped}\"")
  message(FATAL_ERROR "the JUnit totals do not match the JSON summary (${total} tests, ${failed} failed, ${skipped} skipped)")
endif()
message(STATUS "JUnit report of ${total} cases (${failed} failed, ${skipped} skipped) validates")
