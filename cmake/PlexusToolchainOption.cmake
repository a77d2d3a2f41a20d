# Options that build a part only when its toolchain is there:
#
#   plexus_toolchain_option(<var> <doc>)
#     a cache variable <var> = AUTO (build when the toolchain is found, say so
#     when not) | ON (fail configure when it is missing) | OFF; normalizes
#     CMake's other spellings of on/off and refuses anything else.
#   plexus_toolchain_missing(<var> <part> <why>)
#     what to do when the toolchain is missing: a fatal error naming <why>
#     when <var> is ON, a status line when AUTO.
include_guard(GLOBAL)

function(plexus_toolchain_option var doc)
  set(${var} AUTO CACHE STRING "${doc}: AUTO (when its toolchain is found), ON (required) or OFF")
  set_property(CACHE ${var} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${var}}" value)
  if(value MATCHES "^(1|TRUE|YES|Y)$")
    set(value ON)
  elseif(value MATCHES "^(0|FALSE|NO|N)$")
    set(value OFF)
  endif()
  if(NOT value MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${var}='${${var}}': expected AUTO, ON or OFF")
  endif()
  set(${var} ${value} PARENT_SCOPE)
endfunction()

function(plexus_toolchain_missing var part why)
  if(${var} STREQUAL "ON")
    message(FATAL_ERROR "${var}=ON but the ${part} plugin cannot be built: ${why}")
  endif()
  message(STATUS "plexus: ${part} plugin not built: ${why} (${var}=AUTO; OFF silences this)")
endfunction()
