// The vulkan plugin's devices: they open on first use; lavapipe (installed
// by setup.sh, as in CI) shows as an emulated device, the plugin option exclude_cpu_devices leaves
// it out, with the reason, and max_device_memory makes it small enough to
// fill (the out-of-memory test).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/plugins.h"
#include "plexus/tensor.h"

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

// Whether the Vulkan loader is mapped into this process.
bool vulkan_loader_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libvulkan.so") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the plugin opens Vulkan on first use of its devices, not when it loads") {
  REQUIRE_FALSE(vulkan_loader_mapped());
  load_vulkan({});
  CHECK_FALSE(vulkan_loader_mapped());  // loading costs no instance
  CHECK(vulkan_backend().device_count() > 0);
  CHECK(vulkan_loader_mapped());
  plexus::unload_plugins();
}

TEST_CASE("a process that never uses vulkan never opens it, unloading included") {
  load_vulkan({});
  plexus::unload_plugins();
  CHECK_FALSE(vulkan_loader_mapped());
}

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

// The device made 256 MiB (max_device_memory) and filled: the allocation
// that does not fit fails with an error naming the device and the bytes,
// what was allocated stays intact, and freed memory is reused, by a larger
// tensor too (the pool gives its empty blocks back to the driver first).
TEST_CASE("a full device fails an allocation clearly, then recovers what was freed") {
  load_vulkan({{"max_device_memory", "268435456"}});
  plexus::DeviceBackend& b = vulkan_backend();
  REQUIRE(b.device_count() > 0);
  CHECK(b.properties(0).total_memory == 268435456);
  const plexus::Device d = plexus::Device::parse("vulkan:0");
  const int64_t block = int64_t(16) << 20;  // floats: 64 MiB
  std::vector<plexus::Tensor> held;
  std::string message;
  try {
    for (int i = 0; i < 8; ++i) held.push_back(plexus::empty({block}, {plexus::DType::F32, d}));
    FAIL("8 blocks of 64 MiB fit a device of 256 MiB");
  } catch (const plexus::Error& e) {
    CHECK(e.code() == plexus::ErrorCode::OutOfMemory);
    message = e.what();
  }
  CHECK(held.size() == 4);
  CHECK_THAT(message, Catch::Contains("vulkan:0") && Catch::Contains("67108864 bytes") &&
                          Catch::Contains("in use by tensors") &&
                          Catch::Contains("would pass the device's 268435456 bytes"));
  held.front().fill_(3.0);
  CHECK(held.front().cpu().data<float>()[block - 1] == 3.0f);
  held.clear();
  {
    plexus::Tensor big = plexus::empty({block * 3}, {plexus::DType::F32, d});  // 192 MiB
    big.fill_(1.0);
    CHECK(big.cpu().data<float>()[block * 3 - 1] == 1.0f);
  }
  plexus::unload_plugins();
}

TEST_CASE("max_device_memory that is not a number fails the plugin's init, naming the option") {
  plexus::PluginLoadOptions o;
  o.search_paths = {PLEXUS_VULKAN_PLUGIN_DIR};
  o.use_environment = false;
  o.use_default_paths = false;
  o.allow = {"vulkan"};
  o.options["vulkan"] = {{"max_device_memory", "lots"}};
  bool seen = false;
  for (const plexus::PluginRecord& r : plexus::load_plugins(o))
    if (r.name == "vulkan") {
      seen = true;
      CHECK(r.state == plexus::PluginRecord::State::Failed);
      CHECK_THAT(r.reason, Catch::Contains("max_device_memory = 'lots'"));
    }
  CHECK(seen);
  plexus::unload_plugins();
}
