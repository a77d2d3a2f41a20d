// The application config (plexus.toml): where it is found, what it holds, and
// where each value came from. examples/plexus.toml documents every key.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plexus/dispatcher.h"
#include "plexus/plugins.h"

namespace plexus {

// How the runtime picks a device when no explicit `device` is set.
enum class DevicePolicy {
  PreferGpu,   // gpu, then accelerator, then cpu, then emulated devices
  PreferCpu,   // the host cpu first, then as PreferGpu
  MostMemory,  // the device with the largest total_memory; ties as PreferGpu
};
// "prefer_gpu", "prefer_cpu", "most_memory".
const char* device_policy_name(DevicePolicy policy);

// Where one config value came from.
struct ConfigOrigin {
  enum class Kind { Default, File, Environment };
  Kind kind = Kind::Default;
  std::string where;  // the file path or the environment variable's name
  int line = 0;       // in the file; 0 otherwise
  int column = 0;
  // "default", "plexus.toml:7:1", "environment PLEXUS_DEVICE".
  std::string str() const;
};

// Everything plexus.toml can set, with the built-in defaults.
struct Config {
  std::string path;  // the file read; empty when only built-in defaults apply

  // [plugins]: where plugins are found and what is trusted.
  std::vector<std::string> plugin_paths;      // absolute, or made so against the file's directory
  bool use_plugin_path_env = true;            // also search PLEXUS_PLUGIN_PATH
  bool use_default_plugin_paths = true;       // also search <libdir>/plexus/plugins
  std::vector<std::string> allow, deny;       // plugin names; deny wins; empty allow = all
  bool allow_writable_by_others = false;      // accept plugin files others may write
  std::map<std::string, std::string> sha256;  // plugin name -> pinned SHA-256 (hex)
  int64_t plugin_init_timeout_ms = 60000;     // a plugin's init may take this long (0: forever)
  bool probe_plugins = false;                 // load each plugin in a child process first
  // [options.NAME]: per-plugin options as the strings the plugin's get_option reads.
  std::map<std::string, std::map<std::string, std::string>> plugin_options;

  // [runtime]: device choice (at most one of device, prefer, policy), fallback, logging.
  std::string device;               // "vulkan:0"; empty = use prefer or policy
  std::vector<std::string> prefer;  // device type names, best first
  DevicePolicy policy = DevicePolicy::PreferGpu;
  FallbackPolicy fallback = FallbackPolicy::Cpu;
  // trace, debug, info, warn, error, critical, off; the Runtime applies it only
  // when the file or PLEXUS_LOG_LEVEL sets it (a tool may have its own default).
  std::string log_level = "warn";

  // [allocator]: the core's caching allocator (plexus/allocator.h).
  bool allocator_caching = true;          // false: every allocation goes to the device
  size_t allocator_max_cached_bytes = 0;  // cache limit per device; 0 = unlimited

  // Where each set key came from, by dotted name ("runtime.device"); keys not
  // listed have their default.
  std::map<std::string, ConfigOrigin> origins;

  // The loader's options this config asks for.
  PluginLoadOptions plugin_load_options() const;
};

// Reads and checks one TOML file. Throws Error(NotFound) when it does not
// exist, Error(InvalidArgument) for malformed TOML, unknown keys and wrong
// types, the message starting "FILE:LINE:COLUMN: " and naming the valid choices.
Config parse_config_file(const std::string& path);
// The same for TOML text; `name` stands for the file in messages and origins.
Config parse_config_string(const std::string& text, const std::string& name);

// The config file to read: `explicit_path` if not empty, else PLEXUS_CONFIG,
// ./plexus.toml, $XDG_CONFIG_HOME/plexus/plexus.toml (~/.config without it);
// nullopt when none exists. Does not check that an explicit path exists.
std::optional<std::string> find_config_file(const std::string& explicit_path = {});

// Finds and parses the config (built-in defaults when there is no file), then
// applies PLEXUS_DEVICE and PLEXUS_LOG_LEVEL over it, recording their origins.
// Throws as parse_config_file; an explicit or PLEXUS_CONFIG file must exist.
Config load_config(const std::string& explicit_path = {});

// Every config key ("runtime.device", "options.vulkan.exclude_cpu_devices")
// with its value as TOML text and its origin, in file order of sections.
struct ConfigEntry {
  std::string key, value;
  ConfigOrigin origin;
};
std::vector<ConfigEntry> config_entries(const Config& config);

}  // namespace plexus
