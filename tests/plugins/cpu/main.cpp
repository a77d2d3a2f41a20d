// Loads the cpu plugin from the build tree, with the fallback policy 'error'
// so a missing kernel fails its test instead of quietly falling back.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "plexus/dispatcher.h"
#include "plexus/plugins.h"

int main(int argc, char** argv) {
  plexus::PluginLoadOptions options;
  options.search_paths = {PLEXUS_CPU_PLUGIN_DIR};
  options.use_environment = false;
  options.use_default_paths = false;
  options.allow = {"cpu"};
  bool loaded = false;
  for (const plexus::PluginRecord& r : plexus::load_plugins(options)) {
    if (r.name == "cpu" && r.state == plexus::PluginRecord::State::Loaded) loaded = true;
    else if (r.name == "cpu") std::fprintf(stderr, "cpu plugin: %s\n", r.reason.c_str());
  }
  if (!loaded) {
    std::fprintf(stderr, "the cpu plugin did not load from %s\n", PLEXUS_CPU_PLUGIN_DIR);
    return 1;
  }
  plexus::Dispatcher::get().set_fallback_policy(plexus::FallbackPolicy::Error);
  int result = Catch::Session().run(argc, argv);
  plexus::unload_plugins();
  return result;
}
