// `plexus doctor`: which config applies, where plexus looked for plugins and
// what became of each, and which device the Runtime chooses and why, in plain
// words, or (--json) the same facts for machines.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

#include "commands.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/plugins.h"
#include "plexus/runtime.h"

namespace plexus::cli {

namespace {

// The config in use, or why it cannot be used (then nothing else is checked).
std::optional<Config> print_config(const std::string& config_path) {
  try {
    Config c = load_config(config_path);
    fmt::print("Config: {}\n\n",
               c.path.empty() ? "no plexus.toml found; built-in defaults" : c.path);
    return c;
  } catch (const Error& e) {
    fmt::print("Config: FAILED\n{}\n\nFix the config (`plexus config check FILE`) and run again.\n",
               e.message());
    return std::nullopt;
  }
}

// The Runtime's choice and its explanation, indented; false when it fails.
bool print_device(const std::optional<Runtime>& rt, const std::string& error) {
  if (!rt) {
    fmt::print("\nDevice: FAILED: {}\n", error);
    return false;
  }
  fmt::print("\nDevice chosen by the runtime:\n");
  std::string text = rt->explain();
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    fmt::print("  {}\n", text.substr(start, end - start));
  }
  return true;
}

}  // namespace

// The Runtime, which loads the plugins and chooses a device; when it cannot
// choose one, the plugins loaded alone (to show what was found) and why.
struct Opened {
  std::optional<Runtime> rt;
  std::vector<PluginRecord> plugins;
  std::string device_error;
};
Opened open_runtime(const std::string& config_path, const Config& config, bool probe) {
  Opened o;
  try {
    o.rt.emplace(RuntimeOptions{config_path, probe ? std::optional(true) : std::nullopt});
    o.plugins = o.rt->plugins();
  } catch (const Error& e) {
    o.device_error = e.message();
    PluginLoadOptions load = config.plugin_load_options();
    load.probe = load.probe || probe;
    o.plugins = load_plugins(load);
  }
  return o;
}

// --json: the facts of the text report, as data.
int doctor_json(const std::string& config_path, bool probe) {
  nlohmann::json doc;
  Config config;
  try {
    config = load_config(config_path);
  } catch (const Error& e) {
    doc["config"] = {{"file", nullptr}, {"error", e.message()}};
    fmt::print("{}\n", doc.dump(2));
    return 1;
  }
  doc["config"] = {{"file", config.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(config.path)},
                   {"error", nullptr}};
  nlohmann::json search = nlohmann::json::array();
  for (const std::string& dir : plugin_search_path(config.plugin_load_options())) {
    std::error_code ec;
    search.push_back({{"path", dir}, {"exists", std::filesystem::is_directory(dir, ec)}});
  }
  doc["search_path"] = search;
  auto [rt, plugins, device_error] = open_runtime(config_path, config, probe);
  nlohmann::json list = nlohmann::json::array();
  for (const PluginRecord& p : plugins) {
    nlohmann::json types = nlohmann::json::array();
    if (p.state == PluginRecord::State::Loaded)
      for (const std::string& type : p.device_types) {
        DeviceBackend* b = find_device_backend(*find_device_type(type));
        int n = b ? b->device_count() : 0;
        types.push_back({{"type", type}, {"devices", n},
                         {"reason", (b && n == 0) ? b->unavailable_reason() : ""}});
      }
    list.push_back({{"name", p.name},
                    {"manifest", p.manifest},
                    {"library", p.library},
                    {"version", p.version},
                    {"state", plugin_state_name(p.state)},
                    {"reason", p.reason},
                    {"device_types", types},
                    {"load_ms", p.load_ms}});
  }
  doc["plugins"] = list;
  nlohmann::json comm = comm_backends_json();
  doc["comm_backends"] = comm;
  nlohmann::json device{{"chosen", nullptr}, {"error", nullptr}};
  if (rt) {
    device["chosen"] = rt->device().str();
    nlohmann::json candidates = nlohmann::json::array();
    for (const DeviceCandidate& c : rt->candidates())
      candidates.push_back({{"name", c.name}, {"state", candidate_state_name(c.state)},
                            {"kind", c.kind}, {"label", c.label}, {"reason", c.reason},
                            {"coverage", c.coverage}});
    device["candidates"] = candidates;
    device["warnings"] = rt->warnings();
    device["explanation"] = rt->explain();
  } else {
    device["error"] = device_error;
  }
  doc["device"] = device;
  fmt::print("{}\n", doc.dump(2));
  return 0;
}

int doctor(const std::string& config_path, bool json, bool probe) {
  Dispatcher::get();
  if (json) return doctor_json(config_path, probe);
  std::optional<Config> config = print_config(config_path);
  if (!config) return 1;
  std::vector<std::string> path = plugin_search_path(config->plugin_load_options());
  fmt::print("Plugin search path, in order:\n");
  for (size_t i = 0; i < path.size(); ++i) {
    std::error_code ec;
    bool there = std::filesystem::is_directory(path[i], ec);
    fmt::print("  {}. {}{}\n", i + 1, path[i], there ? "" : "  (does not exist)");
  }
  auto [rt, plugins, device_error] = open_runtime(config_path, *config, probe);
  fmt::print("\nPlugins found: {}\n", plugins.size());
  int problems = 0;
  for (const PluginRecord& p : plugins) {
    std::string name = p.name.empty() ? p.manifest : p.name;
    switch (p.state) {
      case PluginRecord::State::Loaded: {
        std::string devs;
        for (const std::string& type : p.device_types) {
          DeviceBackend* b = find_device_backend(*find_device_type(type));
          int n = b ? b->device_count() : 0;
          std::string why = (b && n == 0) ? b->unavailable_reason() : "";
          devs += fmt::format("{}{} ({} device{}{})", devs.empty() ? "" : ", ", type, n,
                              n == 1 ? "" : "s", why.empty() ? "" : ": " + why);
        }
        fmt::print("  ok        {} {} from {} in {:.1f} ms: {}\n", name, p.version, p.library,
                   p.load_ms, devs.empty() ? "no device types" : devs);
        break;
      }
      case PluginRecord::State::Failed:
        problems++;
        fmt::print("  FAILED    {}: {}\n", name, p.reason);
        break;
      case PluginRecord::State::Shadowed:
        fmt::print("  shadowed  {} ({}): {}\n", name, p.manifest, p.reason);
        break;
      case PluginRecord::State::Disabled:
        fmt::print("  disabled  {}: {}\n", name, p.reason);
        break;
    }
  }
  if (plugins.empty())
    fmt::print(
        "  none: put plugins (libplexus-NAME.so with NAME.json) in a directory above,\n"
        "  or name one in PLEXUS_PLUGIN_PATH\n");
  fmt::print("\nCommunication backends (plexus::distributed, for mpirun jobs):\n");
  for (const CommLine& c : comm_backend_lines())
    fmt::print("  {:<9} {:<5} {}; serves {}\n", c.available ? "ok" : "missing", c.name, c.detail,
               c.serves);
  bool device_ok = print_device(rt, device_error);
  std::string verdict = problems ? fmt::format("{} plugin(s) failed to load; see above.", problems)
                                 : std::string("No problems found.");
  if (device_ok && !problems && !rt->warnings().empty())
    verdict = fmt::format("{} config warning(s); see above.", rt->warnings().size());
  if (!device_ok) verdict = "No device could be chosen; see above.";
  fmt::print("\n{}\n", verdict);
  return 0;
}

}  // namespace plexus::cli
