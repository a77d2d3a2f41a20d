// The process's one Dispatcher: the catalog's ops, the host kernels, and the
// PLEXUS_PROFILE hook, set up on first use. Kept apart from the engine
// (call/dispatch.cpp) so the engine does not depend on what the catalog holds.
#include "catalog/catalog.h"
#include "call/host_kernels.h"
#include "layers/profiler_env.h"
#include "plexus/dispatcher.h"

namespace plexus {

Dispatcher& Dispatcher::get() {
  // Built once, never destroyed: plugins and static objects may call it late.
  static Dispatcher* d = [] {
    auto* disp = new Dispatcher;
    define_catalog(*disp);
    register_host_kernels(*disp);
    profiler::start_from_environment(*disp);
    return disp;
  }();
  return *d;
}

}  // namespace plexus
