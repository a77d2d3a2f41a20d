// plexus.toml: every key, every error with its file:line:column, the search
// order of config files, and the environment overrides.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "plexus/config.h"
#include "support/error_of.h"
#include "support/scratch.h"

namespace {

using namespace plexus;
using Catch::Contains;
using plexus::testing::error_of;
using plexus::testing::ScopedCwd;
using plexus::testing::ScopedEnv;
using plexus::testing::ScratchDir;

Config parse(const std::string& text) {
  return parse_config_string(text, "p.toml");
}

// The message of the error that parsing `text` raises.
std::string parse_error(const std::string& text) {
  Error e = error_of([&] { parse(text); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
  return e.message();
}

using CleanEnv = plexus::testing::CleanConfigEnv;

const char* kFull = R"(# every key
[plugins]
paths = ["/opt/plexus/plugins", "vendor"]
use_environment = false
use_default_paths = false
allow = ["cpu", "vulkan"]
deny = ["hip"]
allow_writable_by_others = true

[plugins.sha256]
cpu = "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

[options.vulkan]
exclude_cpu_devices = true
queue_count = 2
scale = 0.5
mode = "fast"

[runtime]
device = "vulkan:1"
fallback = "error"
log_level = "debug"

[allocator]
caching = false
max_cached_mb = 64
)";

}  // namespace

TEST_CASE("an empty config is the built-in defaults") {
  Config c = parse("");
  Config d;
  CHECK(c.plugin_paths.empty());
  CHECK(c.use_plugin_path_env);
  CHECK(c.use_default_plugin_paths);
  CHECK(c.allow.empty());
  CHECK(c.deny.empty());
  CHECK_FALSE(c.allow_writable_by_others);
  CHECK(c.sha256.empty());
  CHECK(c.plugin_options.empty());
  CHECK(c.device.empty());
  CHECK(c.prefer.empty());
  CHECK(c.policy == DevicePolicy::PreferGpu);
  CHECK(c.fallback == FallbackPolicy::Cpu);
  CHECK(c.log_level == "warn");
  CHECK(c.allocator_caching);
  CHECK(c.allocator_max_cached_bytes == 0);
  CHECK(c.origins.empty());
  CHECK(d.path.empty());
}

TEST_CASE("every key of plexus.toml is read, with the line it came from") {
  Config c = parse_config_string(kFull, "/etc/p/plexus.toml");
  CHECK(c.path == "/etc/p/plexus.toml");
  // Relative plugin paths are taken from the config file's directory.
  CHECK(c.plugin_paths == std::vector<std::string>{"/opt/plexus/plugins", "/etc/p/vendor"});
  CHECK_FALSE(c.use_plugin_path_env);
  CHECK_FALSE(c.use_default_plugin_paths);
  CHECK(c.allow == std::vector<std::string>{"cpu", "vulkan"});
  CHECK(c.deny == std::vector<std::string>{"hip"});
  CHECK(c.allow_writable_by_others);
  CHECK(c.sha256.at("cpu") == "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
  // Plugin options become the strings the plugin's get_option returns.
  const auto& vk = c.plugin_options.at("vulkan");
  CHECK(vk.at("exclude_cpu_devices") == "true");
  CHECK(vk.at("queue_count") == "2");
  CHECK(vk.at("scale") == "0.5");
  CHECK(vk.at("mode") == "fast");
  CHECK(c.device == "vulkan:1");
  CHECK(c.fallback == FallbackPolicy::Error);
  CHECK(c.log_level == "debug");
  CHECK_FALSE(c.allocator_caching);
  CHECK(c.allocator_max_cached_bytes == 64u << 20);

  CHECK(c.origins.at("plugins.paths").str() == "/etc/p/plexus.toml:3:1");
  CHECK(c.origins.at("plugins.sha256.cpu").line == 11);
  CHECK(c.origins.at("options.vulkan.exclude_cpu_devices").line == 14);
  CHECK(c.origins.at("runtime.device").line == 20);
  CHECK(c.origins.at("allocator.max_cached_mb").line == 26);
  CHECK(c.origins.at("runtime.device").kind == ConfigOrigin::Kind::File);
}

TEST_CASE("prefer and policy are read") {
  Config p = parse("[runtime]\nprefer = [\"cuda\", \"hip\", \"vulkan\", \"cpu\"]\n");
  CHECK(p.prefer == std::vector<std::string>{"cuda", "hip", "vulkan", "cpu"});
  CHECK(parse("[runtime]\npolicy = \"prefer_gpu\"").policy == DevicePolicy::PreferGpu);
  CHECK(parse("[runtime]\npolicy = \"prefer_cpu\"").policy == DevicePolicy::PreferCpu);
  CHECK(parse("[runtime]\npolicy = \"most_memory\"").policy == DevicePolicy::MostMemory);
  CHECK(parse("[runtime]\nfallback = \"cpu\"").fallback == FallbackPolicy::Cpu);
  CHECK(parse("[runtime]\ndevice = \"cpu\"").device == "cpu");
}

TEST_CASE("the config becomes the plugin loader's options") {
  PluginLoadOptions o = parse_config_string(kFull, "/etc/p/plexus.toml").plugin_load_options();
  CHECK(o.search_paths == std::vector<std::string>{"/opt/plexus/plugins", "/etc/p/vendor"});
  CHECK_FALSE(o.use_environment);
  CHECK_FALSE(o.use_default_paths);
  CHECK(o.allow == std::vector<std::string>{"cpu", "vulkan"});
  CHECK(o.deny == std::vector<std::string>{"hip"});
  CHECK(o.allow_writable_by_others);
  CHECK(o.sha256.size() == 1);
  CHECK(o.options.at("vulkan").at("exclude_cpu_devices") == "true");
}

TEST_CASE("unknown keys are errors naming the file:line:column and the valid keys") {
  CHECK(parse_error("[runtime]\nfallback = \"cpu\"\n\n\n\n\ndevise = \"cpu\"\n") ==
        "p.toml:7:1: unknown key 'devise' in [runtime]; valid keys: device, prefer, policy, "
        "fallback, log_level");
  CHECK(parse_error("[plugin]\npaths = []\n") ==
        "p.toml:1:2: unknown section 'plugin'; valid sections: plugins, options, runtime, "
        "allocator");
  CHECK_THAT(parse_error("[plugins]\npath = []\n"),
             Contains("p.toml:2:1: unknown key 'path' in [plugins]; valid keys: paths, "
                      "use_environment, use_default_paths, allow, deny, "
                      "allow_writable_by_others, init_timeout_ms, probe, sha256"));
  CHECK_THAT(parse_error("[allocator]\ncache = true\n"),
             Contains("p.toml:2:1: unknown key 'cache' in [allocator]; valid keys: caching, "
                      "max_cached_mb"));
  CHECK_THAT(parse_error("device = \"cpu\"\n"), Contains("p.toml:1:1: unknown section 'device'"));
}

TEST_CASE("wrong types are errors saying what was expected and what was found") {
  CHECK(parse_error("[runtime]\nfallback = 3\n") ==
        "p.toml:2:12: runtime.fallback must be a string, one of cpu, error; found an integer (3)");
  CHECK(parse_error("[plugins]\nallow_writable_by_others = \"yes\"\n") ==
        "p.toml:2:28: plugins.allow_writable_by_others must be true or false; found a string "
        "(\"yes\")");
  CHECK_THAT(parse_error("[plugins]\npaths = \"/opt\"\n"),
             Contains("p.toml:2:9: plugins.paths must be an array of strings; found a string"));
  CHECK_THAT(parse_error("[plugins]\ndeny = [\"hip\", 7]\n"),
             Contains("p.toml:2:16: plugins.deny item must be a string; found an integer (7)"));
  CHECK_THAT(parse_error("[runtime]\ndevice = 0\n"),
             Contains("p.toml:2:10: runtime.device must be a string such as \"vulkan:0\""));
  CHECK_THAT(parse_error("[runtime]\nprefer = \"cuda\"\n"),
             Contains("p.toml:2:10: runtime.prefer must be an array of strings"));
  CHECK_THAT(parse_error("[allocator]\nmax_cached_mb = -1\n"),
             Contains("p.toml:2:17: allocator.max_cached_mb must be an integer of MiB"));
  // A float is refused as a float, never converted (a huge one overflowed
  // int64 in toml++'s conversion: found by tests/fuzz, UBSan).
  CHECK_THAT(parse_error("[allocator]\nmax_cached_mb = 6.5e117\n"),
             Contains("p.toml:2:17: allocator.max_cached_mb must be an integer of MiB") &&
                 Contains("found a float"));
  CHECK_THAT(parse_error("[allocator]\nmax_cached_mb = 64.0\n"), Contains("found a float"));
  CHECK_THAT(parse_error("[allocator]\ncaching = 1\n"),
             Contains("p.toml:2:11: allocator.caching must be true or false; found an integer"));
  CHECK_THAT(parse_error("runtime = 1\n"), Contains("p.toml:1:11: runtime must be a table"));
  CHECK_THAT(parse_error("[options]\nvulkan = 1\n"),
             Contains("p.toml:2:10: options.vulkan must be a table ([options.vulkan])"));
  CHECK_THAT(parse_error("[options.vulkan]\nqueues = [1, 2]\n"),
             Contains("p.toml:2:10: options.vulkan.queues must be a string, integer, float or "
                      "boolean; found an array"));
  CHECK_THAT(parse_error("[plugins.sha256]\ncpu = 5\n"),
             Contains("p.toml:2:7: plugins.sha256.cpu must be a string of 64 hex digits"));
}

TEST_CASE("values outside their choices are errors listing the valid values") {
  CHECK(parse_error("[runtime]\npolicy = \"fastest\"\n") ==
        "p.toml:2:10: runtime.policy = \"fastest\" is not valid; valid values: prefer_gpu, "
        "prefer_cpu, most_memory");
  CHECK_THAT(parse_error("[runtime]\nfallback = \"gpu\"\n"),
             Contains("runtime.fallback = \"gpu\" is not valid; valid values: cpu, error"));
  CHECK_THAT(parse_error("[runtime]\nlog_level = \"loud\"\n"),
             Contains("valid values: trace, debug, info, warn, error, critical, off"));
  CHECK_THAT(parse_error("[runtime]\ndevice = \"vulkan:x\"\n"),
             Contains("p.toml:2:10: runtime.device = \"vulkan:x\": device index 'x' is not an "
                      "integer from 0 to 32767"));
  CHECK_THAT(parse_error("[runtime]\ndevice = \"Vulkan\"\n"),
             Contains("expected TYPE or TYPE:INDEX"));
  CHECK_THAT(parse_error("[runtime]\nprefer = [\"cuda\", \"cuda\"]\n"),
             Contains("p.toml:2:19: runtime.prefer: 'cuda' is listed twice"));
  CHECK_THAT(parse_error("[runtime]\nprefer = [\"CUDA\"]\n"),
             Contains("p.toml:2:11: runtime.prefer: 'CUDA' is not a device type name"));
  CHECK_THAT(parse_error("[runtime]\nprefer = []\n"),
             Contains("p.toml:2:10: runtime.prefer is empty"));
  CHECK_THAT(parse_error("[plugins]\nallow = [\"my-plugin\"]\n"),
             Contains("p.toml:2:10: plugins.allow: 'my-plugin' is not a plugin name"));
  CHECK_THAT(parse_error("[options.Vulkan]\nx = 1\n"),
             Contains("p.toml:1:10: [options.Vulkan]: 'Vulkan' is not a plugin name"));
  CHECK_THAT(parse_error("[plugins.sha256]\nmy-cpu = \"abc\"\n"),
             Contains("p.toml:2:1: plugins.sha256.my-cpu: 'my-cpu' is not a plugin name"));
  CHECK_THAT(parse_error("[plugins.sha256]\ncpu = \"abc\"\n"),
             Contains("p.toml:2:7: plugins.sha256.cpu = \"abc\" is not a SHA-256: expected 64 "
                      "hex digits"));
}

TEST_CASE("device, prefer and policy are exclusive") {
  CHECK(parse_error("[runtime]\ndevice = \"cpu\"\nprefer = [\"cpu\"]\n") ==
        "p.toml:3:1: set only one of runtime.device, runtime.prefer and runtime.policy; found "
        "runtime.device at p.toml:2:1, runtime.prefer at p.toml:3:1");
}

TEST_CASE("every error of a file is reported, not only the first") {
  std::string m = parse_error("[runtime]\npolicy = 1\n[allocator]\ncaching = \"no\"\n");
  CHECK_THAT(m, Contains("p.toml:2:10: runtime.policy"));
  CHECK_THAT(m, Contains("\np.toml:4:11: allocator.caching"));
}

TEST_CASE("malformed TOML is an error with toml++'s position") {
  CHECK_THAT(parse_error("[runtime]\ndevice = \"cpu\n"),
             Catch::StartsWith("p.toml:2:") && Contains("malformed TOML"));
  CHECK_THAT(parse_error("[runtime\n"),
             Catch::StartsWith("p.toml:1:") && Contains("malformed TOML"));
}

TEST_CASE("config files: missing, a directory, or read from disk") {
  CleanEnv env;
  ScratchDir dir;
  Error missing = error_of([&] { parse_config_file((dir.path() / "none.toml").string()); });
  CHECK(missing.code() == ErrorCode::NotFound);
  CHECK_THAT(missing.message(), Contains("none.toml does not exist"));
  CHECK_THAT(error_of([&] { parse_config_file(dir.path().string()); }).message(),
             Contains("is a directory"));
  std::string file = dir.write("a.toml", "[runtime]\n\nfallback = 1\n");
  CHECK_THAT(error_of([&] { parse_config_file(file); }).message(),
             Catch::StartsWith(file + ":3:12: runtime.fallback"));
  // An explicit file that does not exist is an error, not the defaults.
  CHECK(error_of([&] { load_config((dir.path() / "none.toml").string()); }).code() ==
        ErrorCode::NotFound);
}

TEST_CASE("the config file is searched: explicit, PLEXUS_CONFIG, ./plexus.toml, XDG") {
  CleanEnv env;
  ScratchDir dir;
  std::string explicit_file = dir.write("explicit.toml", "[runtime]\ndevice = \"explicit\"\n");
  std::string env_file = dir.write("env.toml", "[runtime]\ndevice = \"env\"\n");
  std::string cwd_file = dir.write("cwd/plexus.toml", "[runtime]\ndevice = \"cwd\"\n");
  std::string xdg_file = dir.write("xdg/plexus/plexus.toml", "[runtime]\ndevice = \"xdg\"\n");
  std::string home_file =
      dir.write("home/.config/plexus/plexus.toml", "[runtime]\ndevice = \"home\"\n");
  ScopedEnv home("HOME", (dir.path() / "home").string());
  ScopedCwd cwd(dir.path() / "cwd");
  ScopedEnv xdg("XDG_CONFIG_HOME", (dir.path() / "xdg").string());
  ScopedEnv config("PLEXUS_CONFIG", env_file);

  CHECK(load_config(explicit_file).device == "explicit");
  CHECK(load_config().device == "env");
  CHECK(load_config().path == env_file);
  {
    ScopedEnv no_env("PLEXUS_CONFIG", std::nullopt);
    CHECK(load_config().device == "cwd");
    CHECK(*find_config_file() == "plexus.toml");
    std::filesystem::remove(cwd_file);
    CHECK(load_config().device == "xdg");
    CHECK(*find_config_file() == xdg_file);
    {
      ScopedEnv no_xdg("XDG_CONFIG_HOME", std::nullopt);
      CHECK(load_config().device == "home");
      std::filesystem::remove(home_file);
      CHECK_FALSE(find_config_file().has_value());
      Config defaults = load_config();
      CHECK(defaults.path.empty());
      CHECK(defaults.device.empty());
    }
  }
  // A PLEXUS_CONFIG that names no file is an error saying so.
  ScopedEnv bad("PLEXUS_CONFIG", (dir.path() / "gone.toml").string());
  Error e = error_of([] { load_config(); });
  CHECK(e.code() == ErrorCode::NotFound);
  CHECK_THAT(e.message(), Contains("gone.toml does not exist (named by PLEXUS_CONFIG)"));
}

TEST_CASE("PLEXUS_DEVICE and PLEXUS_LOG_LEVEL override the file and say so") {
  CleanEnv env;
  ScratchDir dir;
  std::string file =
      dir.write("plexus.toml", "[runtime]\ndevice = \"cpu\"\nlog_level = \"info\"\n");
  {
    ScopedEnv device("PLEXUS_DEVICE", "vulkan:0");
    ScopedEnv level("PLEXUS_LOG_LEVEL", "error");
    Config c = load_config(file);
    CHECK(c.device == "vulkan:0");
    CHECK(c.origins.at("runtime.device").str() == "environment PLEXUS_DEVICE");
    CHECK(c.log_level == "error");
    CHECK(c.origins.at("runtime.log_level").str() == "environment PLEXUS_LOG_LEVEL");
  }
  {
    ScopedEnv device("PLEXUS_DEVICE", "vulkan:zero");
    CHECK_THAT(error_of([&] { load_config(file); }).message(),
               Contains("PLEXUS_DEVICE='vulkan:zero': device index 'zero' is not an integer"));
  }
  {
    ScopedEnv level("PLEXUS_LOG_LEVEL", "chatty");
    CHECK_THAT(error_of([&] { load_config(file); }).message(),
               Contains("PLEXUS_LOG_LEVEL='chatty' is not valid; valid values: trace"));
  }
  Config c = load_config(file);
  CHECK(c.device == "cpu");
  CHECK(c.origins.at("runtime.device").str() == file + ":2:1");
}

TEST_CASE("config_entries lists every key with its value and origin") {
  Config c =
      parse("[runtime]\nfallback = \"error\"\n[options.vulkan]\nexclude_cpu_devices = false\n");
  auto entries = config_entries(c);
  auto find = [&](const std::string& key) {
    for (const ConfigEntry& e : entries)
      if (e.key == key) return e;
    FAIL("no entry " << key);
    return ConfigEntry{};
  };
  CHECK(find("runtime.fallback").value == "\"error\"");
  CHECK(find("runtime.fallback").origin.str() == "p.toml:2:1");
  CHECK(find("runtime.policy").value == "\"prefer_gpu\"");
  CHECK(find("runtime.policy").origin.str() == "default");
  CHECK(find("runtime.device").value == "(not set)");
  CHECK(find("options.vulkan.exclude_cpu_devices").value == "\"false\"");
  CHECK(find("options.vulkan.exclude_cpu_devices").origin.line == 4);
  CHECK(find("plugins.use_environment").value == "true");
  CHECK(find("allocator.max_cached_mb").value == "0");
}

TEST_CASE("examples/plexus.toml is a valid config that documents every key") {
  std::string path = std::string(PLEXUS_SOURCE_DIR) + "/examples/plexus.toml";
  Config c = parse_config_file(path);
  CHECK(c.device.empty());  // the example leaves the device to the default policy
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  // Each key appears as "key =" (set or commented out) in its section.
  for (const ConfigEntry& e : config_entries(Config{})) {
    std::string key = e.key.substr(e.key.rfind('.') + 1);
    if (key == "sha256" || key == "options") continue;  // tables, shown by example entries
    INFO(e.key);
    CHECK_THAT(text.str(), Contains(key + " ="));
  }
}
