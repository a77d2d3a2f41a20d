// plexus::Runtime: what an application opens first. It reads the config
// (plexus.toml), loads the plugins it allows, applies its fallback policy, log
// level and allocator options, and chooses a device, able to say why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plexus/config.h"
#include "plexus/device.h"
#include "plexus/plugins.h"

namespace plexus {

// How to open a Runtime.
struct RuntimeOptions {
  std::string config_path;  // --config; empty = search (see find_config_file)
  // Overrides the config's plugins.probe when set (`plexus doctor --probe`).
  std::optional<bool> probe_plugins;
};

// One device, or one device type or plugin without devices, that could have
// been chosen, and what became of it.
struct DeviceCandidate {
  enum class State {
    Chosen,        // this is Runtime::device()
    NotChosen,     // usable, but ranked below the chosen one
    NoDevices,     // its backend loaded and reports 0 devices
    Failed,        // its plugin failed to load
    Excluded,      // left out by the config's allow/deny lists, or shadowed
    NotInstalled,  // named by the config but no plugin provides it
  };
  std::string name;              // "vulkan:0" for a device, else the type or plugin name
  std::optional<Device> device;  // set for State Chosen and NotChosen
  std::string kind;              // "gpu", "cpu", ... for devices; empty otherwise
  State state = State::NotChosen;
  std::string reason;  // plain words: why chosen, or why not
  std::string label;  // the device's own name ("llvmpipe (LLVM 15.0.6, 256 bits)"); empty otherwise
  // Devices whose backend has kernels for fewer than half of the ops that need
  // one (no composite): "kernels for 2 of the 120 ops that need one"; empty
  // otherwise. Policies rank such devices below the others.
  std::string coverage;
};
// "chosen", "not chosen", "no devices", "failed", "excluded", "not installed".
const char* candidate_state_name(DeviceCandidate::State state);

class Runtime {
 public:
  // Reads the config, loads plugins and chooses a device. Throws Error for a
  // bad config, and NotFound when the configured device is unavailable,
  // saying why. One Runtime at a time: plugins must not already be loaded.
  explicit Runtime(const RuntimeOptions& options = {});
  // Same as the constructor.
  static Runtime open(const RuntimeOptions& options = {});
  // Unloads the plugins (tensors on their devices must be gone by then; if
  // not, the plugins stay loaded until exit and a warning is logged).
  ~Runtime();
  Runtime(Runtime&& other) noexcept;
  Runtime& operator=(Runtime&&) = delete;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The chosen device.
  Device device() const { return device_; }
  // Plain words: which device was chosen and why, then why each other candidate was not.
  std::string explain() const;
  // The same as data, the chosen device first.
  const std::vector<DeviceCandidate>& candidates() const { return candidates_; }
  // The effective config (file, defaults and environment overrides).
  const Config& config() const { return config_; }
  // What load_plugins reported for every manifest it found.
  const std::vector<PluginRecord>& plugins() const { return plugins_; }
  // Config entries that matched no plugin found (options, pins, allow list
  // names), each with its file:line; also logged as warnings and in explain().
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  Config config_;
  std::vector<PluginRecord> plugins_;
  std::vector<DeviceCandidate> candidates_;
  std::vector<std::string> warnings_;
  Device device_;
  bool owns_plugins_ = false;
};

}  // namespace plexus
