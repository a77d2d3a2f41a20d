// The core's own cpu kernels for copy_ and fill_, so tensors can be moved,
// converted and filled before (or without) any plugin. A cpu plugin may
// replace them with faster ones.
#pragma once

namespace plexus {

class Dispatcher;
void register_host_kernels(Dispatcher& d);

}  // namespace plexus
