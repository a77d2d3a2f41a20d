#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "commands.h"
#include "plexus/config.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/plugins.h"
#include "plexus/runtime.h"

namespace plexus::cli {
namespace {

std::string gib(size_t bytes) {
  return bytes ? fmt::format("{:.1f} GiB", bytes / double(1ull << 30)) : "-";
}

// The devices of one device type, as the JSON of issue 3 names them.
nlohmann::json devices_of(DeviceType slot) {
  nlohmann::json list = nlohmann::json::array();
  DeviceBackend* b = find_device_backend(slot);
  if (!b) return list;
  int n = b->device_count();
  for (int i = 0; i < n; ++i) {
    DeviceProperties p = b->properties(i);
    list.push_back({{"device", Device(slot, static_cast<int16_t>(i)).str()},
                    {"name", p.name},
                    {"vendor", p.vendor},
                    {"type", p.kind},
                    {"memory_bytes", p.total_memory}});
  }
  return list;
}

// Why a device type has no devices ("" when it has some).
std::string no_devices_reason(DeviceType slot) {
  DeviceBackend* b = find_device_backend(slot);
  if (!b) return "no backend loaded";
  if (b->device_count() > 0) return "";
  std::string r = b->unavailable_reason();
  return r.empty() ? "the backend reports no devices" : r;
}

}  // namespace

int devices(bool json, const std::string& config_path) {
  Dispatcher::get();
  // A Runtime, so the config's plugin paths, allow/deny lists, trust settings
  // and plugin options apply and the device it chooses is marked; when it
  // cannot choose one, the plugins alone, and the reason.
  std::optional<Runtime> rt;
  std::string chosen, no_choice;
  std::vector<PluginRecord> plugins;
  try {
    rt.emplace(RuntimeOptions{config_path});
    plugins = rt->plugins();
    chosen = rt->device().str();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::NotFound) throw;  // a bad config stops here, as before
    no_choice = e.message();
    plugins = load_plugins(load_config(config_path).plugin_load_options());
  }
  // The cpu's host memory belongs to the core; it is listed even before a cpu plugin.
  nlohmann::json core = {{"name", "core"},        {"path", ""},
                         {"status", "loaded"},    {"reason", ""},
                         {"abi", ""},             {"version", ""},
                         {"devices", devices_of(kCPU)}};
  nlohmann::json list = nlohmann::json::array();
  for (const PluginRecord& p : plugins) {
    nlohmann::json devs = nlohmann::json::array();
    std::string reason = p.reason;
    for (const std::string& type : p.device_types) {
      auto slot = find_device_type(type);
      if (!slot) continue;
      for (auto& d : devices_of(*slot)) devs.push_back(d);
      if (std::string why = no_devices_reason(*slot); !why.empty() && reason.empty())
        reason = fmt::format("{}: no devices ({})", type, why);
    }
    list.push_back({{"name", p.name},      {"path", p.library},     {"manifest", p.manifest},
                    {"status", plugin_state_name(p.state)},         {"reason", reason},
                    {"abi", p.abi},        {"version", p.version},  {"devices", devs}});
  }
  nlohmann::json comm = comm_backends_json();
  if (json) {
    nlohmann::json doc{{"host", core}, {"plugins", list}, {"comm_backends", comm}};
    // The device plexus.toml (or the defaults) chooses; null, with the reason, when none.
    doc["chosen_device"] = chosen.empty() ? nlohmann::json(nullptr) : nlohmann::json(chosen);
    if (!no_choice.empty()) doc["no_device_chosen"] = no_choice;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("{:<12} {:<12} {:<10} {}\n", "DEVICE", "TYPE", "MEMORY", "NAME");
  std::set<std::string> shown;  // the cpu is the core's and maybe a plugin's: list it once
  auto print_devices = [&](const nlohmann::json& devs) {
    for (auto& d : devs) {
      std::string device = d["device"];
      if (shown.insert(device).second)
        fmt::print("{:<12} {:<12} {:<10} {}\n", device == chosen ? device + " *" : device,
                   d["type"].get<std::string>(), gib(d["memory_bytes"].get<size_t>()),
                   d["name"].get<std::string>());
    }
  };
  print_devices(core["devices"]);
  for (auto& p : list) print_devices(p["devices"]);
  if (!chosen.empty())
    fmt::print("* the device the config chooses (plexus doctor says why)\n");
  else
    fmt::print("no device is chosen: {}\n", no_choice);
  size_t w = 12;
  for (auto& p : list) w = std::max(w, p["name"].get<std::string>().size() + 1);
  if (!list.empty()) fmt::print("\n{:<{}} {:<9} {}\n", "PLUGIN", w, "STATUS", "DETAIL");
  for (auto& p : list) {
    std::string status = p["status"], reason = p["reason"];
    std::string detail = status == "loaded" ? p["path"].get<std::string>() : reason;
    if (status == "loaded" && !reason.empty()) detail += " — " + reason;
    std::string name = p["name"];
    fmt::print("{:<{}} {:<9} {}\n", name.empty() ? "?" : name, w, status, detail);
  }
  // plexus::distributed's backends, chosen per device type like device backends.
  fmt::print("\n{:<{}} {:<9} {}\n", "COMM", w, "STATUS", "SERVES; DETAIL");
  for (auto& c : comm)
    fmt::print("{:<{}} {:<9} {}; {}\n", c["name"].get<std::string>(), w,
               c["available"].get<bool>() ? "ready" : "missing", c["serves"].get<std::string>(),
               c["detail"].get<std::string>());
  return 0;
}

}  // namespace plexus::cli
