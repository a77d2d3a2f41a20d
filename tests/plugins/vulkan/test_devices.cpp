// The vulkan plugin's devices: lavapipe (installed by setup.sh, as in CI)
// shows as an emulated device, and the plugin option exclude_cpu_devices
// leaves it out, with the reason.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/plugins.h"

namespace {

// Loads only the build tree's vulkan plugin with these plugin options.
void load_vulkan(const std::map<std::string, std::string>& options) {
  plexus::PluginLoadOptions o;
  o.search_paths = {PLEXUS_VULKAN_PLUGIN_DIR};
  o.use_environment = false;
  o.use_default_paths = false;
  o.allow = {"vulkan"};
  o.options["vulkan"] = options;
  bool loaded = false;
  for (const plexus::PluginRecord& r : plexus::load_plugins(o))
    if (r.name == "vulkan") {
      INFO(r.reason);
      loaded = r.state == plexus::PluginRecord::State::Loaded;
    }
  REQUIRE(loaded);
}

plexus::DeviceBackend& vulkan_backend() {
  return plexus::device_backend(plexus::Device::parse("vulkan:0").type);
}

}  // namespace

TEST_CASE("lavapipe is a vulkan device of kind emulated") {
  load_vulkan({});
  plexus::DeviceBackend& b = vulkan_backend();
  INFO("unavailable: " << b.unavailable_reason());
  bool lavapipe = false;
  for (int i = 0; i < b.device_count(); ++i) {
    plexus::DeviceProperties p = b.properties(i);
    if (p.name.find("llvmpipe") != std::string::npos) {
      lavapipe = true;
      CHECK(p.kind == "emulated");
      CHECK(p.total_memory > 0);
    }
  }
  CHECK(lavapipe);
  plexus::unload_plugins();
}

TEST_CASE("exclude_cpu_devices = true leaves lavapipe out and says so") {
  load_vulkan({{"exclude_cpu_devices", "true"}});
  plexus::DeviceBackend& b = vulkan_backend();
  for (int i = 0; i < b.device_count(); ++i)
    CHECK(b.properties(i).name.find("llvmpipe") == std::string::npos);
  if (b.device_count() == 0)
    CHECK(b.unavailable_reason().find("excluded (exclude_cpu_devices = true)") !=
          std::string::npos);
  plexus::unload_plugins();
}

// Run by ctest with VK_ICD_FILENAMES naming no driver (hidden from plain runs).
TEST_CASE("without a Vulkan driver the plugin loads with 0 devices and the reason",
          "[.no_driver]") {
  load_vulkan({});
  plexus::DeviceBackend& b = vulkan_backend();
  CHECK(b.device_count() == 0);
  CHECK(b.unavailable_reason().find("vkCreateInstance failed") != std::string::npos);
  plexus::unload_plugins();
}
