// The core's own cpu kernels for copy_ and fill_, so tensors can be moved,
// converted and filled before (or without) any plugin. A cpu plugin may
// replace them with faster ones.
#pragma once

#include <string_view>

namespace plexus {

class Dispatcher;
// The source name the core's kernels are registered under.
inline constexpr std::string_view kHostKernelSource = "core";
void register_host_kernels(Dispatcher& d);
// Puts back any of the core's cpu kernels that are missing (after a plugin
// that replaced them is unloaded).
void restore_host_kernels(Dispatcher& d);

}  // namespace plexus
