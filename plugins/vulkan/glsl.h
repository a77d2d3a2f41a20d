// GLSL compiled at run time, for the graph compiler (graph.cpp): chains of
// elementwise ops become one compute shader each. The compiler is shaderc
// (glslang and SPIRV-Tools behind it) in libplexus-vulkan-glsl.so, built
// beside the plugin from Debian's libshaderc-dev and opened on the first
// compile (glsl/compiler.cpp says why it is a library of its own).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::vulkan {

// The text of one of shaders/'s shared headers ("common.glsl", "math.glsl"),
// embedded at build time, or nullptr.
const char* glsl_header(const char* name);

// SPIR-V of a compute shader (Vulkan 1.2 semantics, optimized for speed).
// The compiler library is opened from `plugin_directory` (the plugin's own,
// sdk::plugin_directory) on the first call. Throws UNSUPPORTED when
// libplexus-vulkan-glsl.so cannot be opened, INTERNAL with
// the compiler's messages when the source does not compile; `name` is the
// file name those messages use.
std::vector<uint32_t> compile_compute_glsl(const std::string& plugin_directory,
                                           const std::string& source, const std::string& name);

}  // namespace plexus::vulkan
