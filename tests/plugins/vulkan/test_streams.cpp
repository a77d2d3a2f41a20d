// The vulkan plugin's streams under the host's stream API: each stream
// records into command batches of its own, so work really runs apart until
// a Stream::wait (semaphores) orders it (tests/support/stream_checks.h).
#include <catch2/catch.hpp>

#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/plugins.h"
#include "stream_checks.h"

TEST_CASE("user streams order work and keep freed blocks") {
  if (!plexus::find_device_type("vulkan")) {  // once: each SECTION runs the case again
    plexus::PluginLoadOptions o;
    o.search_paths = {PLEXUS_VULKAN_PLUGIN_DIR};
    o.use_environment = false;
    o.use_default_paths = false;
    o.allow = {"vulkan"};
    for (const plexus::PluginRecord& r : plexus::load_plugins(o)) INFO(r.name << ": " << r.reason);
  }
  auto type = plexus::find_device_type("vulkan");
  REQUIRE(type);
  REQUIRE(plexus::find_device_backend(*type)->device_count() > 0);  // lavapipe, installed by setup.sh
  plexus::testing::check_real_streams(plexus::Device(*type, 0));
}
