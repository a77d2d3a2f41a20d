// The plugin's side of run-time GLSL: libplexus-vulkan-glsl.so (glsl/compiler.cpp),
// found in the plugin's directory and opened on the first compile.
#include "glsl.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include "errors.h"

namespace plexus::vulkan {
namespace {

using CompileFn = int (*)(const char*, size_t, const char*, void**, size_t*, char**);
using FreeFn = void (*)(void*);

struct Compiler {
  CompileFn compile = nullptr;
  FreeFn free = nullptr;
  std::string error;  // why it cannot be used; empty when it can

  explicit Compiler(const std::string& directory) {
    const std::string path = directory + "/libplexus-vulkan-glsl.so";
    // Never closed: compiled shaders may be made until the process ends.
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      error = "cannot open " + path + ": " + (e ? e : "");
      return;
    }
    compile = reinterpret_cast<CompileFn>(dlsym(lib, "plexus_vulkan_glsl_compile"));
    free = reinterpret_cast<FreeFn>(dlsym(lib, "plexus_vulkan_glsl_free"));
    if (!compile || !free) error = path + " lacks plexus_vulkan_glsl_compile or _free";
  }
};

}  // namespace

std::vector<uint32_t> compile_compute_glsl(const std::string& plugin_directory,
                                           const std::string& source, const std::string& name) {
  static Compiler c(plugin_directory);
  if (!c.error.empty())
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "vulkan: no GLSL compiler: {}", c.error);
  void* spirv = nullptr;
  size_t nbytes = 0;
  char* message = nullptr;
  if (c.compile(source.data(), source.size(), name.c_str(), &spirv, &nbytes, &message) != 0) {
    std::string m = message ? message : "(no message)";
    c.free(message);
    sdk::fail(PLEXUS_ERROR_INTERNAL, "vulkan: the generated shader '{}' does not compile: {}", name,
              m.substr(0, 2000));
  }
  std::vector<uint32_t> words(nbytes / sizeof(uint32_t));
  std::memcpy(words.data(), spirv, words.size() * sizeof(uint32_t));
  c.free(spirv);
  return words;
}

}  // namespace plexus::vulkan
