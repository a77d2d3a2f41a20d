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

# The guide's first example, the smallest plugin, as a vendor copies it: no
# build type and no C++ standard set (plexus_add_plugin supplies both).
set(mini_src ${prefix}/share/plexus/sdk/examples/smallest)
set(mini ${WORK_DIR}/mini)
step("configure the smallest plugin" ${CMAKE_COMMAND} -S ${mini_src} -B ${mini} -G ${GENERATOR}
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror")
if(NOT step_output MATCHES "no CMAKE_BUILD_TYPE, so it is compiled with -O2")
  message(FATAL_ERROR "plexus_add_plugin did not choose -O2 without a build type:\n${step_output}")
endif()
step("build the smallest plugin" ${CMAKE_COMMAND} --build ${mini})
file(STRINGS ${mini_src}/plugin.cpp mini_lines)
list(LENGTH mini_lines n)
if(n GREATER 60)
  message(FATAL_ERROR "the smallest plugin has ${n} lines; the guide promises at most 60")
endif()
file(CHMOD ${mini} DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
step("run the conformance suite on the smallest plugin"
     ${prefix}/bin/plexus-conformance --plugin ${mini}/mini.json)
message("${step_output}")

# A plugin whose entry point lacks extern "C" or the export macro fails its
# build, naming which, instead of building and then not loading.
foreach(variant "extern_c;PLEXUS_PLUGIN_EXPORT;C++ (mangled) name"
                "export;PLEXUS_EXTERN_C;it is hidden: declare it with PLEXUS_PLUGIN_EXPORT")
  list(GET variant 0 tag)
  list(GET variant 1 kept)
  list(GET variant 2 expected)
  set(src ${WORK_DIR}/broken_${tag})
  file(COPY ${mini_src}/ DESTINATION ${src})
  file(READ ${src}/plugin.cpp code)
  string(REPLACE "PLEXUS_SDK_PLUGIN(init, sdk::shutdown_backend<Mini>)"
         "${kept} const plexus_plugin_info* plexus_plugin_entry(uint32_t, uint32_t) {
  static const plexus_plugin_info info = {sizeof(plexus_plugin_info), PLEXUS_ABI_MAJOR,
      PLEXUS_ABI_MINOR, PLEXUS_PLUGIN_NAME, PLEXUS_PLUGIN_VERSION, init, sdk::shutdown_backend<Mini>};
  return &info;
}" code "${code}")
  file(WRITE ${src}/plugin.cpp "${code}")
  step("configure a plugin without ${tag}" ${CMAKE_COMMAND} -S ${src} -B ${src}/build
       -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
       -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${src}/build RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")  # CMake wraps long messages
  string(FIND "${flat}" "${expected}" at)
  string(FIND "${flat}" "does not export plexus_plugin_entry" what)
  if(rc EQUAL 0 OR what EQUAL -1 OR at EQUAL -1)
    message(FATAL_ERROR "a plugin without ${tag} built (${rc}) or failed otherwise:\n${out}")
  endif()
  if(EXISTS ${src}/build/libplexus-mini.so)
    message(FATAL_ERROR "the plugin without ${tag} that cannot load was left in its build dir")
  endif()
  message(STATUS "a plugin without ${tag}: the build fails and says so")
endforeach()

set(app ${WORK_DIR}/app)
step("configure tests/sdk/app" ${CMAKE_COMMAND} -S ${APP_DIR} -B ${app} ${configure_args}
     "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
expect_from_prefix(${app} Plexus)
step("build tests/sdk/app" ${CMAKE_COMMAND} --build ${app})

step("run the app on toydev" ${app}/toydev-app ${toydev})
message("${step_output}")
