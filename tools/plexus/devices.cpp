#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/plugins.h"

namespace plexus::cli {
namespace {

struct Row {
  std::string device, kind, name, vendor;
  size_t memory;
};

std::string gib(size_t bytes) {
  return bytes ? fmt::format("{:.1f} GiB", bytes / double(1ull << 30)) : "-";
}

}  // namespace

int devices(bool json) {
  Dispatcher::get();  // the catalog and core kernels are in place
  std::vector<PluginRecord> plugins = load_plugins();
  nlohmann::json plugin_list = nlohmann::json::array();
  for (const PluginRecord& p : plugins)
    plugin_list.push_back({{"name", p.name},
                           {"version", p.version},
                           {"state", plugin_state_name(p.state)},
                           {"reason", p.reason},
                           {"manifest", p.manifest},
                           {"library", p.library},
                           {"abi", p.abi},
                           {"device_types", p.device_types}});
  nlohmann::json types = nlohmann::json::array();
  std::vector<Row> rows;
  std::vector<std::string> notes;
  std::vector<std::string> names = registered_device_types();
  for (size_t slot = 0; slot < names.size(); ++slot) {
    DeviceBackend* b = find_device_backend(static_cast<DeviceType>(slot));
    nlohmann::json type = {{"type", names[slot]}, {"slot", slot}};
    if (!b) {
      type["devices"] = nlohmann::json::array();
      type["unavailable_reason"] = "no backend loaded";
      notes.push_back(fmt::format("{}: no backend loaded", names[slot]));
      types.push_back(type);
      continue;
    }
    int n = b->device_count();
    nlohmann::json list = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
      DeviceProperties p = b->properties(i);
      Device d(static_cast<DeviceType>(slot), static_cast<int16_t>(i));
      list.push_back({{"device", d.str()}, {"index", i}, {"name", p.name}, {"vendor", p.vendor},
                      {"kind", p.kind}, {"total_memory_bytes", p.total_memory}});
      rows.push_back({d.str(), p.kind, p.name, p.vendor, p.total_memory});
    }
    type["devices"] = list;
    if (n == 0) {
      std::string why = b->unavailable_reason();
      type["unavailable_reason"] = why;
      notes.push_back(fmt::format("{}: no devices ({})", names[slot], why));
    }
    types.push_back(type);
  }
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"device_types", types}, {"plugins", plugin_list}}.dump(2));
    return 0;
  }
  fmt::print("{:<12} {:<10} {:<10} {}\n", "DEVICE", "KIND", "MEMORY", "NAME");
  for (const Row& r : rows)
    fmt::print("{:<12} {:<10} {:<10} {}{}\n", r.device, r.kind, gib(r.memory), r.name,
               r.vendor.empty() ? "" : " (" + r.vendor + ")");
  for (const std::string& n : notes) fmt::print("{}\n", n);
  if (!plugins.empty()) fmt::print("\nPLUGINS\n");
  for (const PluginRecord& p : plugins)
    fmt::print("{:<12} {:<9} {}{}\n", p.name.empty() ? "?" : p.name, plugin_state_name(p.state),
               p.state == PluginRecord::State::Loaded ? p.library : p.reason,
               p.state == PluginRecord::State::Loaded ? "" : " (" + p.manifest + ")");
  return 0;
}

}  // namespace plexus::cli
