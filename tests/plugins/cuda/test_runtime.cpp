// The gpu plugins' shared runtime (plugins/cuda), loaded for real:
// the simt plugin runs it over the SIMT emulation's runtime, so its options,
// its no-device path and its default streams under many threads are checked
// here; the cuda plugin (when built) is checked for its option errors, and on
// a machine with an NVIDIA GPU runs the same runtime checks for real (the
// build's plugin directory, or PLEXUS_TEST_GPU_PLUGIN_DIR where the build was
// moved: tools/gpu/check.sh runs them so).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "plexus/allocator.h"
#include "plexus/device.h"
#include "plexus/device_backend.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/plugins.h"
#include "runtime_checks.h"
#include "stream_checks.h"

using namespace plexus;

namespace {

// Loads the one plugin `name` from the build's plugin directory with `options`.
PluginRecord load(const std::string& name, std::map<std::string, std::string> options = {}) {
  unload_plugins();
  PluginLoadOptions o;
  const char* dir = std::getenv("PLEXUS_TEST_GPU_PLUGIN_DIR");
  o.search_paths = {dir && *dir ? dir : PLEXUS_TEST_GPU_PLUGIN_DIR};
  o.use_environment = false;
  o.use_default_paths = false;
  o.allow = {name};
  o.options[name] = std::move(options);
  for (const PluginRecord& r : load_plugins(o))
    if (r.name == name) return r;
  FAIL("plugin " << name << " not found in " << o.search_paths[0]);
  return {};
}

conformance::Target target(const std::string& name) {
  auto type = find_device_type(name);
  REQUIRE(type);
  conformance::Target t{Device(*type, 0), find_device_backend(*type), name};
  REQUIRE(t.backend);
  return t;
}

// Round trips on the default stream from many threads at once: each thread's
// bytes must come back whole, whatever stream a NULL stream means.
void check_threads_round_trip(DeviceBackend& b) {
  constexpr int kThreads = 8;
  constexpr size_t kBytes = (size_t{9} << 20) + 123;  // more than two staging chunks
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        std::vector<unsigned char> in(kBytes), out(kBytes);
        std::mt19937 g(static_cast<unsigned>(t));
        for (auto& x : in) x = static_cast<unsigned char>(g());
        void* a = b.allocate(0, kBytes);
        void* c = b.allocate(0, kBytes);
        for (int round = 0; round < 3; ++round) {
          in[static_cast<size_t>(round)] ^= 0xFF;
          b.copy_from_host_on(0, a, 0, in.data(), kBytes, nullptr);
          b.copy_on_device_on(0, c, 0, a, 0, kBytes, nullptr);
          b.copy_to_host_on(0, out.data(), c, 0, kBytes, nullptr);
          if (std::memcmp(in.data(), out.data(), kBytes) != 0)
            errors[static_cast<size_t>(t)] = "round " + std::to_string(round) + " differs";
        }
        b.deallocate(0, a, kBytes);
        b.deallocate(0, c, kBytes);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(t)] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(errors[static_cast<size_t>(t)] == "");
}

// The runtime checks of the conformance suite and the threads' round trips,
// with each default-stream policy; false when the plugin has no device.
bool check_runtime_policies(const std::string& plugin) {
  for (const char* policy : {"shared", "per_thread"}) {
    INFO(plugin << " with default_stream = " << policy);
    PluginRecord r = load(plugin, {{"default_stream", policy}});
    REQUIRE(r.state == PluginRecord::State::Loaded);
    conformance::Target tg = target(plugin);
    if (tg.backend->device_count() == 0) {
      unload_plugins();
      return false;
    }
    for (const conformance::Result& res : conformance::run_runtime_checks(tg, "*")) {
      INFO(res.id() << ": " << res.message);
      CHECK(res.status == conformance::Status::Pass);
    }
    check_threads_round_trip(*tg.backend);
  }
  unload_plugins();
  return true;
}

}  // namespace

TEST_CASE("simt: the runtime checks pass with either default-stream policy") {
  CHECK(check_runtime_policies("simt"));
}

TEST_CASE("simt: user streams order work and keep freed blocks, with either default-stream policy") {
  for (const char* policy : {"shared", "per_thread"}) {
    INFO("default_stream = " << policy);
    REQUIRE(load("simt", {{"default_stream", policy}}).state == PluginRecord::State::Loaded);
    testing::check_real_streams(target("simt").device);
  }
}

// The emulated device made 256 MiB (read at its first allocation: ctest runs
// each test case in a process of its own).
TEST_CASE("simt: a full device fails an allocation clearly, retries after emptying the cache, and recovers") {
  setenv("PLEXUS_SIMT_DEVICE_MEMORY", "268435456", 1);
  REQUIRE(load("simt").state == PluginRecord::State::Loaded);
  Device d = target("simt").device;
  Allocator& alloc = allocator_for(d);
  alloc.empty_cache();
  const int64_t block = int64_t(16) << 20;  // floats: 64 MiB
  std::vector<Tensor> held;
  std::string message;
  try {
    for (int i = 0; i < 8; ++i) held.push_back(empty({block}, {DType::F32, d}));
    FAIL("8 blocks of 64 MiB fit a device of 256 MiB");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfMemory);
    message = e.what();
  }
  CHECK(!held.empty());
  CHECK(held.size() <= 4);
  CHECK_THAT(message, Catch::Contains(d.str() + ": out of memory allocating 67108864 bytes") &&
                          Catch::Contains("on a device of 268435456 bytes") &&
                          Catch::Contains("in use by tensors") &&
                          Catch::Contains("cached bytes were given back to the device"));
  // What was allocated before is intact.
  held.front().fill_(3.0);
  CHECK(held.front().to(Device()).data<float>()[block - 1] == 3.0f);
  // Freed blocks stay cached; a larger tensor than any of them fits only once
  // the cache goes back to the device, which the allocator does by itself.
  size_t frees = alloc.stats().device_frees;
  const size_t cached = held.size() * size_t(block) * sizeof(float);
  held.clear();
  CHECK(alloc.stats().cached_bytes >= cached);
  Tensor big = empty({block * 2}, {DType::F32, d});
  CHECK(alloc.stats().device_frees > frees);
  big.fill_(1.0);
  CHECK(big.to(Device()).data<float>()[block * 2 - 1] == 1.0f);
}

TEST_CASE("simt: a bad default_stream value fails init, naming the option and the choices") {
  PluginRecord r = load("simt", {{"default_stream", "per_stream"}});
  CHECK(r.state == PluginRecord::State::Failed);
  CHECK_THAT(r.reason, Catch::Contains("default_stream = 'per_stream'") &&
                           Catch::Contains("expected 'shared' or 'per_thread'"));
  unload_plugins();
}

TEST_CASE("simt: without a device the plugin loads with 0 devices and the runtime's reason") {
  setenv("PLEXUS_SIMT_DEVICE_COUNT", "0", 1);
  PluginRecord r = load("simt");
  unsetenv("PLEXUS_SIMT_DEVICE_COUNT");
  REQUIRE(r.state == PluginRecord::State::Loaded);
  DeviceBackend* b = find_device_backend(*find_device_type("simt"));
  REQUIRE(b);
  CHECK(b->device_count() == 0);
  CHECK_THAT(b->unavailable_reason(), Catch::StartsWith("simtGetDeviceCount: "));
  // Device 0 does not exist: calls naming it are refused, not crashed on.
  CHECK_THROWS_WITH(b->allocate(0, 16), Catch::Contains("device index 0 out of range"));
  unload_plugins();
}

#ifdef PLEXUS_TEST_GPU_HAVE_CUDA
TEST_CASE("cuda: plugin options are checked at init") {
  PluginRecord bad = load("cuda", {{"cublas", "maybe"}});
  CHECK(bad.state == PluginRecord::State::Failed);
  CHECK_THAT(bad.reason, Catch::Contains("option cublas = 'maybe': expected 'on' or 'off'"));
  PluginRecord off = load("cuda", {{"cublas", "off"}, {"cudnn", "off"}});
  CHECK(off.state == PluginRecord::State::Loaded);
  unload_plugins();
}

// On a machine without an NVIDIA GPU this only loads the plugin; with one, it
// is the real runtime's test (pinned staging, streams and events under threads).
TEST_CASE("cuda: on a GPU, the runtime checks pass with either default-stream policy") {
  if (!check_runtime_policies("cuda")) WARN("no cuda device here: only the simt build ran them");
}

TEST_CASE("cuda: on a GPU, user streams order work and keep freed blocks") {
  load("cuda");
  auto type = find_device_type("cuda");
  if (!type || find_device_backend(*type)->device_count() == 0) {
    WARN("no cuda device here: only the simt build ran them");
    return;
  }
  testing::check_real_streams(Device(*type, 0));
}
#endif
