// Config helpers: names, origins, the loader options a config asks for, and
// the flat list of every key that `plexus config show` prints.
#include "plexus/config.h"

#include <fmt/format.h>

namespace plexus {
namespace {

// A TOML basic string: quotes and backslashes escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> q;
  for (const std::string& s : items) q.push_back(quoted(s));
  return "[" + fmt::format("{}", fmt::join(q, ", ")) + "]";
}

const char* boolean(bool b) {
  return b ? "true" : "false";
}

}  // namespace

const char* device_policy_name(DevicePolicy policy) {
  switch (policy) {
    case DevicePolicy::PreferGpu:
      return "prefer_gpu";
    case DevicePolicy::PreferCpu:
      return "prefer_cpu";
    case DevicePolicy::MostMemory:
      return "most_memory";
  }
  return "?";
}

std::string ConfigOrigin::str() const {
  switch (kind) {
    case Kind::File:
      return fmt::format("{}:{}:{}", where, line, column);
    case Kind::Environment:
      return "environment " + where;
    case Kind::Default:
      break;
  }
  return "default";
}

PluginLoadOptions Config::plugin_load_options() const {
  PluginLoadOptions o;
  o.search_paths = plugin_paths;
  o.use_environment = use_plugin_path_env;
  o.use_default_paths = use_default_plugin_paths;
  o.allow = allow;
  o.deny = deny;
  o.allow_writable_by_others = allow_writable_by_others;
  o.sha256 = sha256;
  o.options = plugin_options;
  o.init_timeout_ms = plugin_init_timeout_ms;
  o.probe = probe_plugins;
  return o;
}

std::vector<ConfigEntry> config_entries(const Config& c) {
  std::vector<ConfigEntry> out;
  auto add = [&](const std::string& key, std::string value) {
    auto it = c.origins.find(key);
    out.push_back({key, std::move(value), it == c.origins.end() ? ConfigOrigin{} : it->second});
  };
  add("plugins.paths", quoted_list(c.plugin_paths));
  add("plugins.use_environment", boolean(c.use_plugin_path_env));
  add("plugins.use_default_paths", boolean(c.use_default_plugin_paths));
  add("plugins.allow", quoted_list(c.allow));
  add("plugins.deny", quoted_list(c.deny));
  add("plugins.allow_writable_by_others", boolean(c.allow_writable_by_others));
  add("plugins.init_timeout_ms", std::to_string(c.plugin_init_timeout_ms));
  add("plugins.probe", boolean(c.probe_plugins));
  if (c.sha256.empty()) add("plugins.sha256", "{}");
  for (const auto& [name, hex] : c.sha256) add("plugins.sha256." + name, quoted(hex));
  if (c.plugin_options.empty()) add("options", "{}");
  for (const auto& [plugin, opts] : c.plugin_options)
    for (const auto& [key, value] : opts) add("options." + plugin + "." + key, quoted(value));
  add("runtime.device", c.device.empty() ? "(not set)" : quoted(c.device));
  add("runtime.prefer", c.prefer.empty() ? "(not set)" : quoted_list(c.prefer));
  add("runtime.policy", quoted(device_policy_name(c.policy)));
  add("runtime.fallback", quoted(std::string(fallback_policy_name(c.fallback))));
  add("runtime.log_level", quoted(c.log_level));
  add("allocator.caching", boolean(c.allocator_caching));
  add("allocator.max_cached_mb", std::to_string(c.allocator_max_cached_bytes >> 20));
  return out;
}

}  // namespace plexus
