// libplexus-vulkan-glsl.so: GLSL to SPIR-V at run time for the vulkan
// plugin's graph compiler, with shaderc, glslang and SPIRV-Tools linked in
// statically. A library of its own because Debian 12's libshaderc.so.1 is
// not usable from a program other than glslc (it leaves glslang's symbols
// undefined, for glslc to provide), and so that loading the plugin does not
// map these 8 MB: the plugin opens this library on its first graph compile
// (plugins/vulkan/glsl.cpp). Its C interface is private to the plugin and
// versioned with it (both are built and installed together).
#include <shaderc/shaderc.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

extern "C" {

// Compiles a compute shader (Vulkan 1.2, optimized for speed). On success
// returns 0 and sets *spirv (malloc'd) and *nbytes; otherwise returns 1 and
// sets *message (malloc'd), the compiler's messages. Thread-safe.
__attribute__((visibility("default"))) int plexus_vulkan_glsl_compile(const char* source,
                                                                      size_t size, const char* name,
                                                                      void** spirv, size_t* nbytes,
                                                                      char** message) {
  static std::mutex mu;
  static shaderc_compiler_t compiler = shaderc_compiler_initialize();
  static shaderc_compile_options_t options = [] {
    shaderc_compile_options_t o = shaderc_compile_options_initialize();
    shaderc_compile_options_set_target_env(o, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_2);
    shaderc_compile_options_set_optimization_level(o, shaderc_optimization_level_performance);
    return o;
  }();
  *spirv = nullptr;
  *nbytes = 0;
  *message = nullptr;
  auto fail = [&](const char* text) {
    *message = strdup(text ? text : "(no message)");
    return 1;
  };
  if (!compiler || !options) return fail("shaderc could not make a compiler");
  std::lock_guard<std::mutex> lock(mu);
  shaderc_compilation_result_t r = shaderc_compile_into_spv(
      compiler, source, size, shaderc_glsl_compute_shader, name, "main", options);
  if (!r) return fail("shaderc returned no result");
  int rc = 0;
  if (shaderc_result_get_compilation_status(r) == shaderc_compilation_status_success) {
    *nbytes = shaderc_result_get_length(r);
    *spirv = std::malloc(*nbytes);
    if (*spirv)
      std::memcpy(*spirv, shaderc_result_get_bytes(r), *nbytes);
    else
      rc = fail("out of memory");
  } else {
    rc = fail(shaderc_result_get_error_message(r));
  }
  shaderc_result_release(r);
  return rc;
}

__attribute__((visibility("default"))) void plexus_vulkan_glsl_free(void* p) {
  std::free(p);
}

}  // extern "C"
