# Driver of the sdk.out_of_tree test (tests/sdk/CMakeLists.txt), run as
# `cmake -P` with PLEXUS_BUILD_DIR, WORK_DIR, TEMPLATE_DIR, APP_DIR, CTEST_COMMAND and the
# main build's GENERATOR, CXX_COMPILER, CXX_LAUNCHER, BUILD_TYPE and flags.
cmake_minimum_required(VERSION 3.25)

# Runs a command; fails the test with its output when it fails.
function(step name)
  message(STATUS "${name}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "${name} failed (${rc}):\n  ${cmd}\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# Fails unless the package `pkg` configured in `build_dir` came from the prefix.
function(expect_from_prefix build_dir pkg)
  file(STRINGS ${build_dir}/CMakeCache.txt dir REGEX "^${pkg}_DIR:")
  string(REGEX REPLACE "^[^=]*=" "" dir "${dir}")
  if(NOT dir MATCHES "^${prefix}/")
    message(FATAL_ERROR "${pkg} was found in '${dir}', not under the install prefix ${prefix}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
step("install plexus into ${prefix}"
     ${CMAKE_COMMAND} --install ${PLEXUS_BUILD_DIR} --prefix ${prefix})

# Out-of-tree projects see the prefix and the system, never this build tree.
set(configure_args -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}
    -DCMAKE_MODULE_LINKER_FLAGS=${MODULE_LINKER_FLAGS})
if(CXX_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()

# The template must build warning-free as the C++17 project it is.
set(toydev ${WORK_DIR}/toydev)
step("configure sdk/template" ${CMAKE_COMMAND} -S ${TEMPLATE_DIR} -B ${toydev} ${configure_args}
     "-DCMAKE_CXX_FLAGS=${CXX_FLAGS} -Wall -Wextra -Wpedantic -Wshadow -Werror")
expect_from_prefix(${toydev} PlexusSDK)
step("build sdk/template" ${CMAKE_COMMAND} --build ${toydev})
foreach(file libplexus-toydev.so toydev.json)
  if(NOT EXISTS ${toydev}/${file})
    message(FATAL_ERROR "the template build did not make ${toydev}/${file}")
  endif()
endforeach()
# The loader refuses plugins writable by group or others; umask may allow that.
file(CHMOD ${toydev} DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(CHMOD ${toydev}/libplexus-toydev.so FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
     GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# The vendor's CI path: the template's ctest runs the installed plexus-conformance.
step("run the conformance suite on toydev (ctest in the template's build)"
     ${CTEST_COMMAND} --test-dir ${toydev} --output-on-failure)

set(app ${WORK_DIR}/app)
step("configure tests/sdk/app" ${CMAKE_COMMAND} -S ${APP_DIR} -B ${app} ${configure_args}
     "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
expect_from_prefix(${app} Plexus)
step("build tests/sdk/app" ${CMAKE_COMMAND} --build ${app})

step("run the app on toydev" ${app}/toydev-app ${toydev})
message("${step_output}")
