// Finding, checking and loading backend plugins (libplexus-<name>.so beside
// its <name>.json manifest), and unloading them at shutdown.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace plexus {

// How load_plugins searches and what it trusts; normally filled from the
// application's config.
struct PluginLoadOptions {
  // Directories searched first, in order (the config's plugin paths);
  // relative ones are taken from the current directory.
  std::vector<std::string> search_paths;
  // Search PLEXUS_PLUGIN_PATH (colon-separated) next; ignored in set-uid processes.
  bool use_environment = true;
  // Then <dir of libplexus.so>/plexus/plugins: the installed plugins, or the
  // build tree's (build/lib/plexus/plugins) when libplexus runs from there.
  bool use_default_paths = true;
  // Plugin names to load (empty: all) and to skip; deny wins over allow.
  std::vector<std::string> allow, deny;
  // Accept libraries, and their directories, writable by group or others or
  // owned by someone other than root and the current user.
  bool allow_writable_by_others = false;
  // Plugin name -> SHA-256 (hex) its library file must have.
  std::map<std::string, std::string> sha256;
  // Plugin name -> options it reads through get_option.
  std::map<std::string, std::map<std::string, std::string>> options;
  // How long a plugin's init may take before the host gives up on it and
  // loads the others (0: wait forever). The plugin fails; its library stays
  // mapped, since a thread of the process is still inside it.
  int64_t init_timeout_ms = 60000;
  // Open and initialize each plugin in a child process first: a plugin whose
  // init crashes, exits or hangs there fails without being loaded here. It
  // costs a fork and a second init per plugin (for CI and `plexus doctor
  // --probe`).
  bool probe = false;
};

// One manifest found by load_plugins, and what became of it.
struct PluginRecord {
  enum class State {
    Loaded,    // initialized; its backends and kernels are registered
    Failed,    // refused or broken; `reason` says why
    Shadowed,  // a plugin of the same name earlier in the search path won
    Disabled,  // left out by the allow/deny lists
  };
  std::string name;      // from the manifest; empty when the manifest is unreadable
  std::string version;   // the plugin's own version, from the manifest
  std::string manifest;  // path of the manifest file
  std::string library;   // path of the library it names
  std::string abi;       // ABI version from the manifest, "1.0"
  State state = State::Failed;
  std::string reason;                     // why Failed, Shadowed or Disabled, in plain words
  std::vector<std::string> device_types;  // backends a Loaded plugin registered
  double load_ms = 0;  // wall time of reading, checking, opening and initializing it
};

// "loaded", "failed", "shadowed", "disabled".
const char* plugin_state_name(PluginRecord::State state);

// The directories load_plugins searches, in order, without duplicates; those
// that do not exist are included (and skipped when loading).
std::vector<std::string> plugin_search_path(const PluginLoadOptions& options = {});

// Finds every manifest on the search path and loads the plugins they name, in
// order; the first plugin of a name wins. Never throws for a bad plugin: each
// failure is in its record. Throws Error(InvalidArgument) when plugins are
// already loaded: call unload_plugins() first. Thread-safe.
std::vector<PluginRecord> load_plugins(const PluginLoadOptions& options = {});

// The records of the current load (empty before load_plugins and after
// unload_plugins). Thread-safe.
std::vector<PluginRecord> plugin_records();

// Shuts down the loaded plugins in reverse load order (devices synchronized,
// cached memory freed, their shutdown called), then unloads their libraries.
// Plugins not unloaded stay loaded until the process exits, without shutdown.
// Throws Error while tensors on a plugin's devices are alive, leaving that
// plugin and those loaded before it in place (call again once they are gone).
// Clears the records. Thread-safe; no-op when nothing is loaded.
void unload_plugins();

}  // namespace plexus
