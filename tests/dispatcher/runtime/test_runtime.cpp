// plexus::Runtime: the device it chooses under each way of asking (explicit
// device, prefer list, each policy, PLEXUS_DEVICE), the clear error when the
// asked-for device is unavailable, explain(), and the settings it applies.
// Devices come from fixture plugins (tests/dispatcher/plugin/fixtures/devices.c) whose kind,
// count and memory are set through the config's plugin options.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "plexus/allocator.h"
#include "plexus/log.h"
#include "plexus/runtime.h"
#include "support/error_of.h"
#include "support/scratch.h"

namespace {

using namespace plexus;
using Catch::Contains;
using plexus::testing::error_of;
using plexus::testing::ScopedEnv;
using plexus::testing::ScratchDir;
using State = DeviceCandidate::State;

const std::string kFixtures = PLEXUS_TEST_PLUGIN_DIR;

// A plexus.toml that loads only fixture plugins: fixture_dev_a and
// fixture_dev_b with 2 devices each, and fixture_ok with none.
struct Setup {
  std::string a_kind = "gpu", b_kind = "accelerator";
  int a_memory_mb = 1024, b_memory_mb = 1024;
  std::string plugins;  // extra lines for [plugins]
  std::string runtime;  // lines for [runtime]
  std::string options;  // extra lines for [options.fixture_dev_a]

  std::string text() const {
    return fmt::format(R"([plugins]
paths = ["{0}/fixture_dev_a", "{0}/fixture_dev_b", "{0}/fixture_ok"]
use_environment = false
use_default_paths = false
{1}
[options.fixture_dev_a]
kind = "{2}"
memory_mb = {3}
{4}
[options.fixture_dev_b]
kind = "{5}"
memory_mb = {6}

[runtime]
{7}
)",
                       kFixtures, plugins, a_kind, a_memory_mb, options, b_kind, b_memory_mb,
                       runtime);
  }
};

// A Runtime opened on the setup's config file, written to a scratch directory.
struct Opened {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file;
  Runtime rt;
  explicit Opened(const Setup& s)
      : file(dir.write("plexus.toml", s.text())), rt(RuntimeOptions{file}) {}
};

// The error opening a Runtime on the setup's config raises.
Error open_error(const Setup& s) {
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file = dir.write("plexus.toml", s.text());
  return error_of([&] { Runtime rt(RuntimeOptions{file}); });
}

const DeviceCandidate& candidate(const Runtime& rt, const std::string& name) {
  for (const DeviceCandidate& c : rt.candidates())
    if (c.name == name) return c;
  FAIL("no candidate " << name << " in:\n" << rt.explain());
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("runtime: an explicit device is chosen, and said to be") {
  Setup s;
  s.runtime = "device = \"fixture_dev_a:1\"";
  Opened o(s);
  CHECK(o.rt.device().str() == "fixture_dev_a:1");
  const DeviceCandidate& chosen = o.rt.candidates().front();
  CHECK(chosen.state == State::Chosen);
  CHECK(chosen.name == "fixture_dev_a:1");
  CHECK(chosen.kind == "gpu");
  CHECK(chosen.reason == "runtime.device = \"fixture_dev_a:1\" (" + o.file + ":15:1)");
  CHECK(candidate(o.rt, "fixture_dev_a:0").state == State::NotChosen);
  CHECK(candidate(o.rt, "fixture_dev_a:0").reason == "not the configured device (fixture_dev_a:1)");
  CHECK(o.rt.config().path == o.file);
}

TEST_CASE("runtime: an unavailable explicit device is an error saying why") {
  Setup s;
  s.runtime = "device = \"fixture_dev_a:5\"";
  Error range = open_error(s);
  CHECK(range.code() == ErrorCode::NotFound);
  CHECK_THAT(range.message(),
             Contains("device fixture_dev_a:5 (set by ") &&
                 Contains("is not available: fixture_dev_a: index 5 is out of range: "
                          "fixture_dev_a has 2 device(s) (fixture_dev_a:0, fixture_dev_a:1)"));
  // A failed open leaves no plugin loaded.
  CHECK(plugin_records().empty());

  s.runtime = "device = \"fixture_ok\"";
  CHECK_THAT(open_error(s).message(),
             Contains("fixture_ok: plugin fixture_ok loaded, 0 devices: fixture hardware is not "
                      "present"));

  s.runtime = "device = \"vulkan:0\"";
  CHECK_THAT(open_error(s).message(),
             Contains("vulkan: not installed: no plugin on the search path provides 'vulkan'"));

  s.runtime = "device = \"fixture_dev_b\"";
  s.plugins = "deny = [\"fixture_dev_b\"]";
  CHECK_THAT(open_error(s).message(), Contains("fixture_dev_b: denied by the configuration"));

  // A plugin that fails to load, in a config of its own.
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string file =
      dir.write("plexus.toml", fmt::format("[plugins]\npaths = [\"{}/fixture_init_fails\"]\n"
                                           "use_environment = false\nuse_default_paths = false\n"
                                           "[runtime]\ndevice = \"fixture_init_fails:0\"\n",
                                           kFixtures));
  Error failed = error_of([&] { Runtime rt(RuntimeOptions{file}); });
  CHECK_THAT(failed.message(), Contains("fixture_init_fails: plugin failed to load: "));
}

TEST_CASE("runtime: the prefer list picks the first type with a device") {
  Setup s;
  s.runtime = "prefer = [\"fixture_ok\", \"fixture_dev_b\", \"fixture_dev_a\"]";
  Opened o(s);
  CHECK(o.rt.device().str() == "fixture_dev_b:0");
  CHECK_THAT(o.rt.candidates().front().reason,
             Contains("first device of 'fixture_dev_b' in runtime.prefer") &&
                 Contains("earlier types have no device: fixture_ok"));
  CHECK(candidate(o.rt, "fixture_dev_a:0").reason ==
        "fixture_dev_a is lower in runtime.prefer than fixture_dev_b");
  CHECK(candidate(o.rt, "fixture_dev_b:1").reason ==
        "fixture_dev_b:0 comes first among the fixture_dev_b devices");
  CHECK_THAT(candidate(o.rt, "cpu").reason, Catch::StartsWith("not in runtime.prefer"));
}

TEST_CASE("runtime: a prefer list with no device anywhere is an error naming each type") {
  Setup s;
  s.runtime = "prefer = [\"fixture_ok\", \"cuda\"]";
  Error e = open_error(s);
  CHECK(e.code() == ErrorCode::NotFound);
  CHECK_THAT(e.message(), Contains("no device type in runtime.prefer") &&
                              Contains("fixture_ok: plugin fixture_ok loaded, 0 devices") &&
                              Contains("cuda: not installed") &&
                              Contains("Add \"cpu\" to the list"));
}

TEST_CASE("runtime: policy prefer_gpu ranks gpu, accelerator, cpu, emulated") {
  Setup s;
  s.runtime = "policy = \"prefer_gpu\"";
  s.a_kind = "accelerator";
  s.b_kind = "gpu";
  Opened o(s);
  CHECK(o.rt.device().str() == "fixture_dev_b:0");
  CHECK_THAT(o.rt.candidates().front().reason,
             Contains("policy prefer_gpu (" + o.file +
                      ":15:1) ranks it first (gpu, then accelerator, cpu, emulated devices)"));
  CHECK(candidate(o.rt, "fixture_dev_a:0").reason ==
        "prefer_gpu ranks gpu devices above accelerator devices");
  CHECK_THAT(candidate(o.rt, "cpu").reason,
             Catch::StartsWith("prefer_gpu ranks gpu devices above cpu devices"));
  CHECK(candidate(o.rt, "fixture_dev_b:1").reason ==
        "fixture_dev_b:0 comes first among the fixture_dev_b devices");
}

TEST_CASE("runtime: prefer_gpu puts the host cpu above emulated devices") {
  Setup s;
  s.a_kind = "emulated";
  s.b_kind = "cpu";
  Opened o(s);  // no runtime keys: the default policy
  CHECK(o.rt.device().str() == "cpu");
  CHECK_THAT(o.rt.candidates().front().reason,
             Contains("policy prefer_gpu (the built-in default)"));
  CHECK(candidate(o.rt, "fixture_dev_a:0").reason ==
        "prefer_gpu ranks cpu devices above emulated devices");
  CHECK(candidate(o.rt, "fixture_dev_b:0").reason ==
        "both are cpu devices; the host cpu comes first (no copies)");
}

TEST_CASE("runtime: the default policy is prefer_gpu") {
  Opened o(Setup{});
  CHECK(o.rt.device().str() == "fixture_dev_a:0");
  CHECK(o.rt.config().policy == DevicePolicy::PreferGpu);
}

TEST_CASE("runtime: policy prefer_cpu chooses the host cpu") {
  Setup s;
  s.runtime = "policy = \"prefer_cpu\"";
  Opened o(s);
  CHECK(o.rt.device() == Device(kCPU, 0));
  CHECK(candidate(o.rt, "fixture_dev_a:0").reason ==
        "prefer_cpu ranks cpu devices above gpu devices");
}

TEST_CASE("runtime: policy most_memory chooses by total memory") {
  Setup s;
  s.runtime = "policy = \"most_memory\"";
  s.b_memory_mb = 1 << 24;  // 16 TiB: more than any test machine's RAM
  s.a_memory_mb = 1 << 23;
  Opened o(s);
  CHECK(o.rt.device().str() == "fixture_dev_b:0");
  CHECK_THAT(
      o.rt.candidates().front().reason,
      Contains("policy most_memory (" + o.file + ":15:1): it has the most memory (16384.0 GiB)"));
  CHECK(candidate(o.rt, "fixture_dev_a:0").reason ==
        "less memory (8192.0 GiB) than fixture_dev_b:0 (16384.0 GiB)");
  CHECK_THAT(candidate(o.rt, "cpu").reason, Contains("less memory"));
  // Equal memory: ranked as prefer_gpu.
  CHECK(candidate(o.rt, "fixture_dev_b:1").reason ==
        "fixture_dev_b:0 comes first among the fixture_dev_b devices");
}

TEST_CASE("runtime: PLEXUS_DEVICE overrides the config's choice") {
  Setup s;
  s.runtime = "prefer = [\"fixture_dev_b\"]";
  plexus::testing::CleanConfigEnv env;
  ScopedEnv device("PLEXUS_DEVICE", "fixture_dev_a:1");
  ScratchDir dir;
  Runtime rt(RuntimeOptions{dir.write("plexus.toml", s.text())});
  CHECK(rt.device().str() == "fixture_dev_a:1");
  CHECK(rt.candidates().front().reason ==
        "runtime.device = \"fixture_dev_a:1\" (environment PLEXUS_DEVICE)");
}

TEST_CASE("runtime: plugin options reach the plugin as strings") {
  Setup s;
  s.options = "count = 3";
  {
    Opened o(s);
    CHECK(candidate(o.rt, "fixture_dev_a:2").kind == "gpu");  // the integer 3 became "3"
  }
  s.options = "present = false";  // the boolean false became "false"
  Opened o(s);
  CHECK(candidate(o.rt, "fixture_dev_a").state == State::NoDevices);
  CHECK(candidate(o.rt, "fixture_dev_a").reason ==
        "plugin fixture_dev_a loaded, 0 devices: fixture_dev_a is switched off (present = false)");
}

TEST_CASE("runtime: explain() names the choice and why every other candidate lost") {
  Setup s;
  s.plugins = "deny = [\"fixture_dev_b\"]";
  Opened o(s);
  std::string text = o.rt.explain();
  CHECK_THAT(text,
             Catch::StartsWith("chosen: fixture_dev_a:0 (gpu device: fixture_dev_a device 0)\n"
                               "why: policy prefer_gpu (the built-in default) ranks it "
                               "first (gpu, then accelerator, cpu, emulated devices)\n"));
  CHECK_THAT(text, Contains("config: " + o.file + "\n"));
  CHECK_THAT(text, Contains("not chosen:\n"));
  CHECK_THAT(text, Contains("\n  fixture_dev_a:1: fixture_dev_a:0 comes first among the "
                            "fixture_dev_a devices\n"));
  CHECK_THAT(text, Contains("\n  cpu: prefer_gpu ranks gpu devices above cpu devices (host "
                            "memory only: no cpu plugin is loaded, so ops on it have no "
                            "kernels)\n"));
  CHECK_THAT(text, Contains("\n  fixture_ok: plugin fixture_ok loaded, 0 devices: fixture "
                            "hardware is not present\n"));
  CHECK_THAT(text, Contains("\n  fixture_dev_b: denied by the configuration\n"));
  CHECK_THAT(text, Contains("\n  hip: not installed (no plugin on the search path provides it)\n"));
  CHECK(candidate(o.rt, "fixture_dev_b").state == State::Excluded);
  CHECK(candidate(o.rt, "hip").state == State::NotInstalled);
  CHECK(candidate(o.rt, "fixture_ok").state == State::NoDevices);
}

TEST_CASE("runtime: config entries naming no plugin found are warnings, not silence") {
  Setup s;
  s.plugins = "allow = [\"fixture_dev_a\", \"ghost\"]\n[plugins.sha256]\nghost = \"" +
              std::string(64, 'a') + "\"\n[options.ghost]\nspeed = 3";
  {
    Opened o(s);
    REQUIRE(o.rt.warnings().size() == 3);
    CHECK(o.rt.warnings()[0] ==
          "[options.ghost] (" + o.file +
              ":9:1): no plugin named 'ghost' was found; its options are unused");
    CHECK(o.rt.warnings()[1] == "plugins.sha256.ghost (" + o.file +
                                    ":7:1): no plugin named 'ghost' was found; the pin is unused");
    CHECK(o.rt.warnings()[2] ==
          "plugins.allow (" + o.file + ":5:1) lists 'ghost', but no plugin of that name was found");
    CHECK_THAT(o.rt.explain(), Contains("config warnings:\n  [options.ghost] ("));
  }
  Opened clean(Setup{});
  CHECK(clean.rt.warnings().empty());
}

TEST_CASE("runtime: fallback, log level and allocator options are applied") {
  FallbackPolicy fallback = Dispatcher::get().fallback_policy();
  AllocatorOptions alloc = allocator_options();
  auto level = logging::get("runtime").level();
  {
    Setup s;
    s.runtime = "fallback = \"error\"\nlog_level = \"critical\"";
    s.plugins = "";
    plexus::testing::CleanConfigEnv env;
    ScratchDir dir;
    std::string file =
        dir.write("plexus.toml", s.text() + "[allocator]\ncaching = false\nmax_cached_mb = 3\n");
    Runtime rt(RuntimeOptions{file});
    CHECK(Dispatcher::get().fallback_policy() == FallbackPolicy::Error);
    CHECK(logging::get("runtime").level() == spdlog::level::critical);
    CHECK_FALSE(allocator_options().caching);
    CHECK(allocator_options().max_cached_bytes == 3u << 20);
  }
  Dispatcher::get().set_fallback_policy(fallback);
  set_allocator_options(alloc);
  logging::set_level(level);
}

TEST_CASE("runtime: plugins load with it and unload with it; one at a time") {
  {
    Opened o(Setup{});
    CHECK_FALSE(plugin_records().empty());
    CHECK(o.rt.plugins().size() == 3);
    ScratchDir dir;
    std::string file = dir.write("plexus.toml", Setup{}.text());
    CHECK_THAT(error_of([&] { Runtime second(RuntimeOptions{file}); }).message(),
               Contains("plugins are already loaded"));
    // The failed open put back the settings it had applied.
    std::string strict = dir.write("strict.toml", "[runtime]\nfallback = \"error\"\n");
    error_of([&] { Runtime second(RuntimeOptions{strict}); });
    CHECK(Dispatcher::get().fallback_policy() == FallbackPolicy::Cpu);
  }
  CHECK(plugin_records().empty());
  // A bad config fails the open before anything loads.
  plexus::testing::CleanConfigEnv env;
  ScratchDir dir;
  std::string bad = dir.write("plexus.toml", "[runtime]\ndevise = \"cpu\"\n");
  CHECK_THAT(error_of([&] { Runtime::open(RuntimeOptions{bad}); }).message(),
             Contains(bad + ":2:1: unknown key 'devise' in [runtime]"));
  CHECK(plugin_records().empty());
  // So does one whose device is unavailable.
  Setup s;
  s.runtime = "device = \"fixture_dev_a:9\"\nfallback = \"error\"";
  open_error(s);
  CHECK(Dispatcher::get().fallback_policy() == FallbackPolicy::Cpu);
  CHECK(plugin_records().empty());
}
