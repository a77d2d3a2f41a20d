// The distributed tests: one Catch2 session per rank, under
// `mpirun -np 2` (tests/distributed/CMakeLists.txt). Every rank runs the same
// test cases in the same order, so their collectives meet. Loads the cpu
// plugin, and the simt plugin for tensors the mpi backend stages through the
// host.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "plexus/dispatcher.h"
#include "plexus/distributed.h"
#include "plexus/plugins.h"

int main(int argc, char** argv) {
  plexus::PluginLoadOptions options;
  options.search_paths = {PLEXUS_PLUGIN_DIR};
  options.use_environment = false;
  options.use_default_paths = false;
  options.allow = {"cpu", "simt"};
  bool cpu = false;
  for (const plexus::PluginRecord& r : plexus::load_plugins(options))
    if (r.name == "cpu" && r.state == plexus::PluginRecord::State::Loaded) cpu = true;
  if (!cpu) {
    std::fprintf(stderr, "the cpu plugin did not load from %s\n", PLEXUS_PLUGIN_DIR);
    return 1;
  }
  plexus::Dispatcher::get().set_fallback_policy(plexus::FallbackPolicy::Error);
  // Checks on, whatever the build type: the tests rely on them.
  plexus::distributed::ProcessGroup& pg =
      plexus::distributed::init_process_group({.check_consistency = true});
  if (pg.size() < 2) {
    std::fprintf(stderr, "run these tests under mpirun with at least 2 ranks\n");
    return 1;
  }
  int result = Catch::Session().run(argc, argv);
  return result;
}
