# plexus_add_plugin(): builds a plexus backend plugin and writes its manifest.
# Used in-tree (plugins/*) and by vendors through find_package(PlexusSDK).
#
#   plexus_add_plugin(NAME <name> SOURCES <src>... [VERSION <x.y.z>]
#                     [XFAIL <file>] [INSTALL] [INSTALL_DESTINATION <dir>]
#                     [LIBRARY_ONLY])
#
# - a MODULE library target plexus-<name>, file libplexus-<name>.so, linked
#   only against PlexusSDK::headers (a plugin never links libplexus);
# - hidden visibility: plexus_plugin_entry is the only exported symbol;
# - C++17 for C++ sources (the SDK's helpers need it), and -O2 when the
#   project sets no CMAKE_BUILD_TYPE (a single-config generator's default is
#   no optimization);
# - PLEXUS_PLUGIN_NAME and PLEXUS_PLUGIN_VERSION defined as string literals,
#   for plexus_plugin_info to agree with the manifest;
# - output into ${PLEXUS_PLUGIN_OUTPUT_DIRECTORY} when set, else the current
#   binary dir, with the manifest <name>.json beside the library:
#   {"name", "library", "abi_version": "<major>.<minor>" of plugin.h, "plugin_version", "arch"};
# - XFAIL: the plugin's expected conformance failures (sdk/VENDOR_GUIDE.md,
#   "The xfail file"), copied beside the manifest as <name>.xfail, where
#   plexus-conformance --plugin <name> finds them without --xfail;
# - with INSTALL, all of them go to INSTALL_DESTINATION (default
#   ${CMAKE_INSTALL_LIBDIR}/plexus/plugins, where plexus looks for them).
# - after linking, a check that the library exports plexus_plugin_entry: a
#   missing extern "C" or PLEXUS_PLUGIN_EXPORT fails the build, naming which,
#   instead of a plugin that builds and then does not load.
# VERSION defaults to PROJECT_VERSION, else 0.0.0.
# LIBRARY_ONLY: the library alone, without a manifest (and without XFAIL),
# for a plugin's second half that the plugin itself opens (plugins/hip: a
# small plugin that loads its heavy runtime library only where a GPU can be).

# Script mode, run after each plugin's link: cmake -DPLEXUS_CHECK_ENTRY_OF=LIB
# -DPLEXUS_NM=nm -P PlexusPluginTools.cmake.
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED PLEXUS_CHECK_ENTRY_OF)
  execute_process(COMMAND "${PLEXUS_NM}" -D --defined-only "${PLEXUS_CHECK_ENTRY_OF}"
                  OUTPUT_VARIABLE exported RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR exported MATCHES "[ \t]T plexus_plugin_entry\n")
    return()  # exported (or nm cannot tell: the loader will say)
  endif()
  execute_process(COMMAND "${PLEXUS_NM}" "${PLEXUS_CHECK_ENTRY_OF}" OUTPUT_VARIABLE all ERROR_QUIET)
  if(all MATCHES "_Z[0-9]+plexus_plugin_entry")
    set(cause "it has a C++ (mangled) name: declare it with PLEXUS_EXTERN_C")
  elseif(all MATCHES "[tT] plexus_plugin_entry\n")
    set(cause "it is hidden: declare it with PLEXUS_PLUGIN_EXPORT")
  else()
    set(cause "it is not defined")
  endif()
  file(REMOVE "${PLEXUS_CHECK_ENTRY_OF}")  # no library that cannot load is left behind
  message(FATAL_ERROR "${PLEXUS_CHECK_ENTRY_OF} does not export plexus_plugin_entry, so plexus "
          "cannot load it: ${cause}. A plugin defines\n  PLEXUS_EXTERN_C PLEXUS_PLUGIN_EXPORT const "
          "plexus_plugin_info* plexus_plugin_entry(uint32_t host_abi_major, uint32_t "
          "host_abi_minor)")
endif()

include_guard(GLOBAL)
include(GNUInstallDirs)
set(_PLEXUS_PLUGIN_TOOLS_FILE "${CMAKE_CURRENT_LIST_FILE}" CACHE INTERNAL "plexus_add_plugin's own file, run as its entry check")

# The ABI version "<major>.<minor>" that plugin.h in `include_dir` declares.
function(plexus_abi_version include_dir out_var)
  set(header "${include_dir}/plexus/plugin.h")
  if(NOT EXISTS "${header}")
    message(FATAL_ERROR "plexus_add_plugin: ${header} not found")
  endif()
  file(STRINGS "${header}" defines REGEX "^#define PLEXUS_ABI_(MAJOR|MINOR) [0-9]+")
  foreach(line IN LISTS defines)
    if(line MATCHES "^#define PLEXUS_ABI_(MAJOR|MINOR) ([0-9]+)")
      set(abi_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
    endif()
  endforeach()
  if(NOT DEFINED abi_MAJOR OR NOT DEFINED abi_MINOR)
    message(FATAL_ERROR "plexus_add_plugin: no PLEXUS_ABI_MAJOR/MINOR in ${header}")
  endif()
  set(${out_var} "${abi_MAJOR}.${abi_MINOR}" PARENT_SCOPE)
endfunction()

# The include dir holding plexus/plugin.h, from the PlexusSDK::headers target.
function(_plexus_sdk_include_dir out_var)
  if(NOT TARGET PlexusSDK::headers)
    message(FATAL_ERROR "plexus_add_plugin: PlexusSDK::headers is not defined; "
                        "use find_package(PlexusSDK) first")
  endif()
  get_target_property(dirs PlexusSDK::headers INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS dirs)
    string(REGEX REPLACE "^\\$<BUILD_INTERFACE:(.*)>$" "\\1" dir "${dir}")
    if(EXISTS "${dir}/plexus/plugin.h")
      set(${out_var} "${dir}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "plexus_add_plugin: plexus/plugin.h not under PlexusSDK::headers' "
                      "include dirs (${dirs})")
endfunction()

function(plexus_add_plugin)
  cmake_parse_arguments(PARSE_ARGV 0 arg "INSTALL;LIBRARY_ONLY"
                        "NAME;VERSION;XFAIL;INSTALL_DESTINATION" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "plexus_add_plugin: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "plexus_add_plugin: NAME '${arg_NAME}' must match [a-z][a-z0-9_]*")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "plexus_add_plugin(${arg_NAME}): no SOURCES")
  endif()
  set(version "${arg_VERSION}")
  if(NOT version)
    set(version "${PROJECT_VERSION}")
  endif()
  if(NOT version)
    set(version "0.0.0")
  endif()
  set(out_dir "${PLEXUS_PLUGIN_OUTPUT_DIRECTORY}")
  if(NOT out_dir)
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  _plexus_sdk_include_dir(sdk_include)
  plexus_abi_version("${sdk_include}" abi)

  set(target plexus-${arg_NAME})
  add_library(${target} MODULE ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE PlexusSDK::headers)
  # The SDK's C++ helpers need C++17 (at least; a project may ask for more).
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(CXX IN_LIST languages)
    target_compile_features(${target} PRIVATE cxx_std_17)
  endif()
  # Kernels compiled at -O0 are what a project without a build type gets.
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT multi_config AND NOT CMAKE_BUILD_TYPE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-O2>)
    message(STATUS "plexus_add_plugin(${arg_NAME}): no CMAKE_BUILD_TYPE, so it is compiled "
                   "with -O2 (set CMAKE_BUILD_TYPE to Release or Debug to choose)")
  endif()
  target_compile_definitions(${target} PRIVATE PLEXUS_PLUGIN_NAME="${arg_NAME}"
                             PLEXUS_PLUGIN_VERSION="${version}")
  set_target_properties(${target} PROPERTIES
    PREFIX "lib" OUTPUT_NAME "plexus-${arg_NAME}" LIBRARY_OUTPUT_DIRECTORY "${out_dir}"
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  _plexus_export_only_entry(${target})

  set(dest "${arg_INSTALL_DESTINATION}")
  if(NOT dest)
    set(dest "${CMAKE_INSTALL_LIBDIR}/plexus/plugins")
  endif()
  if(arg_LIBRARY_ONLY)
    if(arg_XFAIL)
      message(FATAL_ERROR "plexus_add_plugin(${arg_NAME}): LIBRARY_ONLY has no manifest, so no XFAIL")
    endif()
    if(arg_INSTALL)
      install(TARGETS ${target} LIBRARY DESTINATION "${dest}")
    endif()
    return()
  endif()

  # The manifest the loader reads before it opens the library; "arch" lets a
  # host refuse a plugin built for another processor without opening it.
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" arch)
  if(arch STREQUAL "amd64")
    set(arch "x86_64")
  elseif(arch STREQUAL "arm64")
    set(arch "aarch64")
  endif()
  # Written beside the library when the library is built (not at configure
  # time), so a plugin that was not built leaves no manifest that would make
  # it look broken to the loader.
  set(manifest "${out_dir}/${arg_NAME}.json")
  # Not *.json: when the output directory is this one, the loader must not
  # take the staged copy for a manifest.
  set(staged "${CMAKE_CURRENT_BINARY_DIR}/${target}.manifest.staged")
  file(GENERATE OUTPUT "${staged}" CONTENT "{
  \"name\": \"${arg_NAME}\",
  \"library\": \"$<TARGET_FILE_NAME:${target}>\",
  \"abi_version\": \"${abi}\",
  \"plugin_version\": \"${version}\",
  \"arch\": \"${arch}\"
}
")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy_if_different "${staged}" "${manifest}" VERBATIM)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${staged}")
  set_property(TARGET ${target} PROPERTY PLEXUS_PLUGIN_MANIFEST "${manifest}")
  if(arg_XFAIL)
    get_filename_component(xfail_source "${arg_XFAIL}" ABSOLUTE)
    if(NOT EXISTS "${xfail_source}")
      message(FATAL_ERROR "plexus_add_plugin(${arg_NAME}): XFAIL file ${xfail_source} does not exist")
    endif()
    set(xfail "${out_dir}/${arg_NAME}.xfail")
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different "${xfail_source}" "${xfail}" VERBATIM)
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${xfail_source}")
  endif()

  if(arg_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION "${dest}")
    install(FILES "${manifest}" DESTINATION "${dest}")
    if(arg_XFAIL)
      install(FILES "${xfail}" DESTINATION "${dest}")
    endif()
  endif()
endfunction()

# Keeps every symbol but plexus_plugin_entry local, including the weak ones
# that inline code from other libraries' headers would otherwise export, and
# fails the link if the plugin leaves symbols undefined (such as libplexus').
function(_plexus_export_only_entry target)
  if(APPLE)
    target_link_options(${target} PRIVATE "LINKER:-exported_symbol,_plexus_plugin_entry")
    return()
  endif()
  if(NOT CMAKE_SYSTEM_NAME MATCHES "Linux|BSD")
    return()
  endif()
  if(CMAKE_NM)  # the entry point must be exported: see the script mode at the top
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -DPLEXUS_CHECK_ENTRY_OF=$<TARGET_FILE:${target}>
              -DPLEXUS_NM=${CMAKE_NM} -P "${_PLEXUS_PLUGIN_TOOLS_FILE}" VERBATIM)
  endif()
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}.exports")
  file(WRITE "${script}.in" "{\n  global: plexus_plugin_entry;\n  local: *;\n};\n")
  configure_file("${script}.in" "${script}" COPYONLY)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${script}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${script}")
  # Sanitizer runtimes resolve at load time, so allow undefined symbols there.
  if(NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize" AND NOT CMAKE_C_FLAGS MATCHES "-fsanitize")
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()

# plexus_add_conformance_test(<name> [DEVICE <n>] [XFAIL <file>] [ARGS <arg>...]
#                             [GRAD [GRAD_ARGS <arg>...]])
#
# Registers the ctest `conformance.<name>`: plexus-conformance runs its whole
# suite against the plugin plexus_add_plugin(NAME <name>) built, straight from
# the build directory, and writes conformance-<name>.xml (JUnit) and
# conformance-<name>.json into conformance-reports/ of the current binary
# directory (not beside the plugin: the loader reads every *.json in a plugin
# directory as a manifest). XFAIL names the plugin's expected-failures
# file. A plugin with no device on the machine shows as skipped (exit code 77),
# never as passed. GRAD also registers `conformance.grad.<name>`: the gradient
# of every differentiable op, float32 and float64, by backward on the plugin's
# device against central differences of the reference (GRAD_ARGS are added to
# it, e.g. --filter "*/float32/*"). COMPOSITES also registers
# `conformance.composites.<name>`: the catalog's composite defaults of the ops
# the plugin has no kernel for, run on its device through its other kernels.
# Needs enable_testing(). The runner is PLEXUS_CONFORMANCE_EXECUTABLE
# (set by find_package(PlexusSDK) to the installed one; in the plexus tree, the
# one it builds).
function(plexus_add_conformance_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "GRAD;COMPOSITES" "DEVICE;XFAIL" "ARGS;GRAD_ARGS")
  if(NOT TARGET plexus-${name})
    message(FATAL_ERROR "plexus_add_conformance_test: no plugin '${name}' (plexus_add_plugin(NAME ${name}) first)")
  endif()
  if(NOT PLEXUS_CONFORMANCE_EXECUTABLE)
    message(FATAL_ERROR "plexus_add_conformance_test: PLEXUS_CONFORMANCE_EXECUTABLE is not set")
  endif()
  if(NOT PLEXUS_CONFORMANCE_EXECUTABLE MATCHES "^\\$<" AND NOT EXISTS "${PLEXUS_CONFORMANCE_EXECUTABLE}")
    message(FATAL_ERROR "plexus_add_conformance_test: ${PLEXUS_CONFORMANCE_EXECUTABLE} does not exist "
                        "(plexus was installed without its tools)")
  endif()
  get_target_property(manifest plexus-${name} PLEXUS_PLUGIN_MANIFEST)
  set(device 0)
  if(DEFINED arg_DEVICE)
    set(device ${arg_DEVICE})
  endif()
  set(reports "${CMAKE_CURRENT_BINARY_DIR}/conformance-reports")
  file(MAKE_DIRECTORY "${reports}")
  set(cmd "${PLEXUS_CONFORMANCE_EXECUTABLE}" --plugin "${manifest}" --device ${device}
      --junit "${reports}/conformance-${name}.xml"
      --json "${reports}/conformance-${name}.json")
  if(arg_XFAIL)
    get_filename_component(xfail "${arg_XFAIL}" ABSOLUTE)
    list(APPEND cmd --xfail "${xfail}")
  endif()
  add_test(NAME conformance.${name} COMMAND ${cmd} ${arg_ARGS})
  set_tests_properties(conformance.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS conformance)
  if(arg_GRAD)
    add_test(NAME conformance.grad.${name}
             COMMAND "${PLEXUS_CONFORMANCE_EXECUTABLE}" --plugin "${manifest}" --device ${device}
                     --grad --junit "${reports}/conformance-grad-${name}.xml"
                     --json "${reports}/conformance-grad-${name}.json"
                     ${arg_GRAD_ARGS})
    set_tests_properties(conformance.grad.${name} PROPERTIES SKIP_RETURN_CODE 77
                         LABELS conformance)
  endif()
  if(arg_COMPOSITES)
    add_test(NAME conformance.composites.${name}
             COMMAND "${PLEXUS_CONFORMANCE_EXECUTABLE}" --plugin "${manifest}" --device ${device}
                     --composites --junit "${reports}/conformance-composites-${name}.xml"
                     --json "${reports}/conformance-composites-${name}.json")
    set_tests_properties(conformance.composites.${name} PROPERTIES SKIP_RETURN_CODE 77
                         LABELS conformance)
  endif()
endfunction()
