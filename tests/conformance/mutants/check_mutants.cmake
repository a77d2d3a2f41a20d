# conformance.mutants: runs plexus-conformance on every mutant plugin
# (mutant.cpp, one defect each) and checks that the suite fails exactly the
# cases the defect breaks, passes the rest, and that a failure's re-run
# command reproduces it alone.
#
#   cmake -DCONFORMANCE=<plexus-conformance> -DMUTANTS=<conformance-mutants dir>
#         -DWORK=<scratch dir> -P check_mutants.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var CONFORMANCE MUTANTS WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_mutants.cmake: pass -D${var}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})

set(problems "")
function(problem text)
  set(problems "${problems}\n  ${text}" PARENT_SCOPE)
endfunction()

# Reads a JSON report into <prefix>_ids (every result), <prefix>_passed and
# <prefix>_failed (ids); <prefix>_passed_descs and <prefix>_failed_descs
# ("<id> (<inputs>)", e.g. "add.out/float32/odd/out (self=[7], other=[7])",
# so that rules can name layouts); and per failure, in order,
# <prefix>_messages and <prefix>_reruns (';' becomes ',' to keep them lists).
function(read_report file prefix)
  file(READ ${file} doc)
  string(JSON cases GET "${doc}" cases)
  string(JSON n LENGTH "${cases}")
  set(lists ids passed failed passed_descs failed_descs messages reruns)
  foreach(list IN LISTS lists)
    set(${list} "")
  endforeach()
  # string(JSON) parses its whole input on every call, so the array is cut
  # into its objects first: CMake writes each flat object of it as "{" ...
  # "\n  }" (strings hold no raw newline); the count check below guards that.
  set(rest "${cases}")
  set(count 0)
  while(TRUE)
    string(FIND "${rest}" "\n  }" end)
    if(end EQUAL -1)
      break()
    endif()
    string(FIND "${rest}" "{" begin)
    math(EXPR length "${end} + 4 - ${begin}")
    math(EXPR next "${end} + 4")
    string(SUBSTRING "${rest}" ${begin} ${length} c)
    string(SUBSTRING "${rest}" ${next} -1 rest)
    math(EXPR count "${count} + 1")
    string(JSON id GET "${c}" id)
    string(JSON status GET "${c}" status)
    string(JSON shape GET "${c}" shape)
    list(APPEND ids ${id})
    if(status STREQUAL "pass")
      list(APPEND passed ${id})
      list(APPEND passed_descs "${id} (${shape})")
    elseif(status STREQUAL "fail")
      list(APPEND failed ${id})
      list(APPEND failed_descs "${id} (${shape})")
      string(JSON message GET "${c}" message)
      string(JSON rerun GET "${c}" rerun)
      string(REPLACE ";" "," message "${message}")
      list(APPEND messages "${message}")
      list(APPEND reruns "${rerun}")
    endif()
  endwhile()
  if(NOT count EQUAL n)
    message(FATAL_ERROR "${file}: read ${count} of the ${n} results; the cutting above needs fixing")
  endif()
  foreach(list IN LISTS lists)
    set(${prefix}_${list} "${${list}}" PARENT_SCOPE)
  endforeach()
endfunction()

# expect(<defect> [EXIT <status>] [FAIL_ONLY <regex>] [MESSAGE <regex>]
#        [FAIL_ALL <regex>...] [MUST_FAIL <id>...] [MUST_PASS <id>...]):
# runs the suite on mutant_<defect> and checks its exit status (default 1);
# that every failure's "<id> (<inputs>)" matches FAIL_ONLY (without it, none
# may fail) and its message MESSAGE; that each FAIL_ALL regex matches some
# case and every case it matches failed; and that the MUST_ ids failed and
# passed. Sets <defect>_caught and <defect>_rerun to the first failure the
# defect explains and its re-run command, for check_rerun.
function(expect defect)
  cmake_parse_arguments(arg "" "EXIT;FAIL_ONLY;MESSAGE;DEVICE" "FAIL_ALL;MUST_FAIL;MUST_PASS" ${ARGN})
  if(NOT DEFINED arg_EXIT)
    set(arg_EXIT 1)
  endif()
  # The suite runs on both of a mutant's devices; the rules read device 0's
  # report unless DEVICE names another.
  set(json ${WORK}/${defect}.json)
  set(device_json ${WORK}/${defect}.device1.json)
  file(REMOVE ${json} ${device_json})
  execute_process(COMMAND ${CONFORMANCE} --plugin ${MUTANTS}/${defect} --no-xfail --json ${json}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT EXISTS ${device_json})
    problem("mutant_${defect}: no report for its device 1 (${device_json}): the sweep over every device did not run")
  endif()
  if(DEFINED arg_DEVICE)
    set(json ${WORK}/${defect}.device${arg_DEVICE}.json)
  endif()
  file(WRITE ${WORK}/${defect}.txt "${out}")
  if(NOT EXISTS ${json})
    problem("mutant_${defect}: exit status ${rc} and no JSON report; output in ${WORK}/${defect}.txt")
    set(problems "${problems}" PARENT_SCOPE)
    return()
  endif()
  read_report(${json} r)
  list(LENGTH r_passed npassed)
  list(LENGTH r_failed nfailed)
  message(STATUS "mutant_${defect}: exit ${rc}, ${npassed} passed, ${nfailed} failed")
  if(NOT rc EQUAL arg_EXIT)
    problem("mutant_${defect}: exit status ${rc}, expected ${arg_EXIT}")
  endif()
  if(arg_EXIT EQUAL 1 AND nfailed EQUAL 0)
    problem("mutant_${defect}: no case failed")
  endif()
  set(caught "")
  foreach(id desc message rerun IN ZIP_LISTS r_failed r_failed_descs r_messages r_reruns)
    if(NOT arg_FAIL_ONLY OR NOT desc MATCHES "${arg_FAIL_ONLY}")
      problem("mutant_${defect}: ${desc} failed, but the defect does not touch it: ${message}")
    elseif(arg_MESSAGE AND NOT message MATCHES "${arg_MESSAGE}")
      problem("mutant_${defect}: ${desc} failed for another reason than the defect: ${message}")
    elseif(NOT caught)
      set(caught ${id})
      set(${defect}_rerun "${rerun}" PARENT_SCOPE)
    endif()
  endforeach()
  set(${defect}_caught "${caught}" PARENT_SCOPE)
  foreach(regex IN LISTS arg_FAIL_ALL)
    set(matched FALSE)
    foreach(desc IN LISTS r_failed_descs)
      if(desc MATCHES "${regex}")
        set(matched TRUE)
      endif()
    endforeach()
    foreach(desc IN LISTS r_passed_descs)
      if(desc MATCHES "${regex}")
        set(matched TRUE)
        problem("mutant_${defect}: ${desc} should fail, but passed")
      endif()
    endforeach()
    if(NOT matched)
      problem("mutant_${defect}: no case matches '${regex}'")
    endif()
  endforeach()
  foreach(id IN LISTS arg_MUST_FAIL)
    if(NOT id IN_LIST r_failed)
      if(id IN_LIST r_ids)
        problem("mutant_${defect}: ${id} should fail, but did not")
      else()
        problem("mutant_${defect}: ${id} should fail, but the suite has no such case")
      endif()
    endif()
  endforeach()
  foreach(id IN LISTS arg_MUST_PASS)
    if(NOT id IN_LIST r_passed)
      problem("mutant_${defect}: ${id} should pass (the defect does not touch it), but did not")
    endif()
  endforeach()
  set(problems "${problems}" PARENT_SCOPE)
endfunction()

# Runs the re-run command printed for `defect`'s first failure the defect
# explains and checks it reproduces that failure alone.
function(check_rerun defect)
  set(id ${${defect}_caught})
  set(rerun "${${defect}_rerun}")
  separate_arguments(command UNIX_COMMAND "${rerun}")
  set(json ${WORK}/${defect}-rerun.json)
  file(REMOVE ${json})
  execute_process(COMMAND ${command} --json ${json} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 1)
    problem("mutant_${defect}: the re-run command of ${id} exited ${rc}, expected 1: ${rerun}")
  elseif(NOT EXISTS ${json})
    problem("mutant_${defect}: the re-run command of ${id} wrote no JSON report: ${rerun}")
  else()
    read_report(${json} again)
    if(NOT "${again_ids}" STREQUAL "${id}" OR NOT "${again_failed}" STREQUAL "${id}")
      problem("mutant_${defect}: the re-run command of ${id} ran [${again_ids}] and failed "
              "[${again_failed}], expected just ${id} failing: ${rerun}")
    endif()
  endif()
  set(problems "${problems}" PARENT_SCOPE)
endfunction()

set(add add.out/float32)
set(sum sum.IntList_out/float32)
set(mm mm.out/float32)

# No defect: every case and runtime check it runs passes.
expect(control EXIT 0
  MUST_PASS ${add}/odd/functional ${add}/transposed/out ${add}/stress/threads
            ${sum}/out_transposed/out ${sum}/out_pitched/out ${mm}/long_k_exact/functional
            ${mm}/long_k/out)

# Dense row-major addressing (offsets and stride-0 broadcasting kept): wrong
# only where an input is transposed, strided or pitched, and then always for sum; add
# is right where every operand has the same such layout (a dense walk of each
# pairs the right elements, as in transposed/out and transposed/inplace).
expect(strides
  FAIL_ONLY "^(${add}|${sum})/.* \\(.*(transposed|strided|pitched)"
  FAIL_ALL "^${sum}/.* \\(.*(transposed|strided|pitched)"
  MUST_FAIL ${add}/transposed/functional ${add}/strided/functional ${add}/strided/out
            ${add}/strided/inplace ${add}/mixed_layouts/functional ${add}/mixed_layouts/out
            ${add}/alpha_transposed/functional
  MUST_PASS ${add}/0d/functional ${add}/odd/functional ${add}/prime_2d/out ${add}/offset/out
            ${add}/bcast_both/functional ${add}/expanded_rhs/functional)

# A broadcast input read as its element 0: wrong for every broadcast but a
# 0-d one, which is one element anyway.
expect(broadcast
  FAIL_ONLY "^(${add}/[a-z0-9_]*(bcast|expanded)|${sum}/.* \\(.*expanded)"
  FAIL_ALL "^${sum}/.* \\(.*expanded"
  MUST_FAIL ${add}/bcast_lhs/functional ${add}/bcast_rhs/functional ${add}/bcast_both/functional
            ${add}/bcast_3d/functional ${add}/expanded/functional ${add}/expanded_rhs/inplace
            ${add}/alpha_bcast_rhs/functional
  MUST_PASS ${add}/bcast_0d/functional ${add}/odd/functional ${add}/transposed/functional
            ${add}/mixed_layouts/out)

# Sums 3 ulp off: every exact-valued case (tolerance 0) fails, no add case
# does; random sums may pass, as their tolerance grows with the terms.
expect(ulp
  FAIL_ONLY "^${sum}/"
  FAIL_ALL "^${sum}/exact")

# One element written past the end of out: caught where poison surrounds the
# written tensor (the out variant; self with gaps, as in strided/inplace).
# Past a storage's last byte (functional, contiguous in-place) nothing checks.
expect(overrun
  FAIL_ONLY "^${add}/[a-z0-9_]+/(out|inplace|out_self|out_other) "
  MESSAGE "storage element\\(s\\) outside the view were written"
  MUST_FAIL ${add}/0d/out ${add}/odd/out ${add}/odd/out_other ${add}/prime_2d/out ${add}/large/out
            ${add}/transposed/out ${add}/strided/out ${add}/strided/inplace
  MUST_PASS ${add}/odd/functional ${add}/empty/out ${add}/empty_2d/out)

# A scratch buffer shared by concurrent calls: right alone, wrong under threads.
expect(race
  FAIL_ONLY "^${add}/[a-z0-9_]+/threads(_mixed)? "
  MESSAGE "concurrent threads"
  MUST_PASS ${add}/stress/functional ${add}/stress/out ${add}/stress/inplace
            ${add}/alpha_stress/functional)

# A launch size shared by concurrent calls: right while they have one shape
# (threads), wrong when calls of another shape overlap (threads_mixed).
expect(race_shape
  FAIL_ONLY "^${add}/[a-z0-9_]+/threads_mixed "
  MESSAGE "concurrent threads"
  MUST_PASS ${add}/stress/threads ${add}/stress/functional ${add}/alpha_stress/threads)

# alpha taken as 1: every alpha_ case, and nothing else.
expect(alpha
  FAIL_ONLY "^${add}/alpha_"
  FAIL_ALL "^${add}/alpha_"
  MUST_PASS ${add}/prime_2d/functional ${add}/transposed/functional ${add}/stress/functional
            ${add}/special/functional)

# self copied into out before other is read: wrong exactly when out is other.
expect(alias_other
  FAIL_ONLY "^${add}/[a-z0-9_]+/out_other "
  FAIL_ALL "^${add}/[a-z0-9_]+/out_other "
  MUST_FAIL ${add}/odd/out_other ${add}/prime_2d/out_other
  MUST_PASS ${add}/odd/out_self ${add}/odd/out ${add}/odd/inplace ${add}/bcast_lhs/functional)

# float16 results cut toward zero instead of rounded to nearest even: less
# than an ulp off, so the one-ulp cases pass and only the exact-valued
# exact_rounding case (16-bit sums exact in float32) fails.
expect(truncate16
  FAIL_ONLY "^add.out/float16/exact_rounding/"
  FAIL_ALL "^add.out/float16/exact_rounding/"
  MUST_FAIL add.out/float16/exact_rounding/functional add.out/float16/exact_rounding/out
  MUST_PASS add.out/float16/prime_2d/functional add.out/float16/special/functional
            add.out/float16/alpha_prime_2d/functional ${add}/odd/functional)

# A sum that writes only its first 65535 outputs (a grid-size limit): only
# the case with more outputs than that, many_rows, can tell.
expect(grid
  FAIL_ONLY "^${sum}/many_rows/"
  FAIL_ALL "^${sum}/many_rows/"
  MUST_PASS ${sum}/large/functional ${sum}/medium_cols/out ${sum}/stress/functional)

# alpha read as a double whatever the Scalar's kind: the floating alphas pass,
# the integer ones (alpha_int_, as add(a, b, 2) sends) fail.
expect(scalar_kind
  FAIL_ONLY "^${add}/alpha_int_"
  FAIL_ALL "^${add}/alpha_int_"
  MUST_PASS ${add}/alpha_prime_2d/functional ${add}/alpha_half_special/functional
            ${add}/odd/functional)

# Contiguous rows taken for a contiguous tensor: wrong exactly where rows
# have gaps between them (pitched, an input or sum's out).
expect(pitch
  FAIL_ONLY "^(${add}/pitched|${sum}/pitched|${sum}/out_pitched/out )"
  FAIL_ALL "^${sum}/pitched"
  MUST_FAIL ${add}/pitched/functional ${add}/pitched/out
  MUST_PASS ${add}/transposed/functional ${add}/strided/out ${add}/bcast_lhs/functional
            ${add}/expanded/functional ${sum}/strided/functional)

# A sum that writes out as dense row-major: wrong exactly where the out
# variant's out is a view with other strides.
expect(dense_out
  FAIL_ONLY "^${sum}/[a-z0-9_]+/out \\(.*, out (transposed|strided|pitched)"
  FAIL_ALL "^${sum}/out_[a-z]+/out "
  MUST_PASS ${sum}/out_transposed/functional ${sum}/rows/out ${sum}/transposed_rows/out
            ${add}/transposed/out)

# A product that drops the tail of K past its last whole tile of 1024: only
# contractions in the thousands (long_k) can tell.
expect(short_k
  FAIL_ONLY "^${mm}/long_k"
  FAIL_ALL "^${mm}/long_k"
  MUST_PASS ${mm}/large/functional ${mm}/exact/functional ${mm}/transposed_both/out)

# Kernels that look every tensor up in device 0's memory: right on device 0,
# wrong for every case with a tensor on device 1 (the suite's default runs
# every device of a plugin).
expect(device0 DEVICE 1
  FAIL_ONLY "^(${add}|${sum}|${mm}|add.out/float16|copy_)/"
  MESSAGE "is not memory of device 0"
  FAIL_ALL "^${add}/odd/functional" "^${sum}/rows/functional" "^${mm}/large/functional")
read_report(${WORK}/device0.json device0_on_0)
if(device0_on_0_failed)
  problem("mutant_device0: device 0 should pass everything, but failed ${device0_on_0_failed}")
endif()

# The printed re-run commands reproduce a failure alone (the deterministic
# defects; the race's depends on timing).
foreach(defect strides broadcast ulp overrun alpha alias_other truncate16 grid scalar_kind pitch
        dense_out short_k device0)
  if(${defect}_caught)
    check_rerun(${defect})
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "the conformance suite and the mutants disagree:${problems}")
endif()
message(STATUS "every mutant was caught on the right cases")
