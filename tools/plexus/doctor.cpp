// `plexus doctor`: where plexus looked for plugins and what became of each,
// in plain words, one line per candidate.
#include <fmt/format.h>

#include <filesystem>

#include "commands.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/plugins.h"

namespace plexus::cli {

int doctor() {
  Dispatcher::get();
  std::vector<std::string> path = plugin_search_path();
  fmt::print("Plugin search path, in order:\n");
  for (size_t i = 0; i < path.size(); ++i) {
    std::error_code ec;
    bool there = std::filesystem::is_directory(path[i], ec);
    fmt::print("  {}. {}{}\n", i + 1, path[i], there ? "" : "  (does not exist)");
  }
  std::vector<PluginRecord> plugins = load_plugins();
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
        fmt::print("  ok        {} {} from {}: {}\n", name, p.version, p.library,
                   devs.empty() ? "no device types" : devs);
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
    fmt::print("  none: put plugins (libplexus-NAME.so with NAME.json) in a directory above,\n"
               "  or name one in PLEXUS_PLUGIN_PATH\n");
  fmt::print("\n{}\n", problems ? fmt::format("{} plugin(s) failed to load; see above.", problems)
                                : std::string("No problems found."));
  return 0;
}

}  // namespace plexus::cli
