# plexus_warnings(TARGET): the warning set every plexus target is built with.
function(plexus_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wno-unused-parameter -Wno-missing-field-initializers
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-stringop-overread>)
endfunction()
