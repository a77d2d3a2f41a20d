// plexus::Runtime: the config read, applied to the core and dispatcher,
// plugins loaded, and a device chosen (device_choice.cpp).
#include "plexus/runtime.h"

#include <fmt/format.h>

#include <algorithm>

#include "plexus/allocator.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/log.h"
#include "runtime/device_choice.h"

namespace plexus {
namespace {

// Log level, fallback policy and allocator options: set before plugins load,
// so the loader already logs at the configured level. A log level nobody set
// leaves the process' level alone (a tool may have lowered it).
void apply(const Config& c) {
  if (c.origins.count("runtime.log_level")) logging::set_level(logging::parse_level(c.log_level));
  Dispatcher::get().set_fallback_policy(c.fallback);
  set_allocator_options({c.allocator_caching, c.allocator_max_cached_bytes});
}

// The settings apply() changes, as they were, so a failed open can put them back.
struct Settings {
  spdlog::level::level_enum level = logging::get("runtime").level();
  FallbackPolicy fallback = Dispatcher::get().fallback_policy();
  AllocatorOptions allocator = allocator_options();
  void restore() const {
    logging::set_level(level);
    Dispatcher::get().set_fallback_policy(fallback);
    set_allocator_options(allocator);
  }
};

std::string origin(const Config& c, const std::string& key) {
  auto it = c.origins.find(key);
  return it == c.origins.end() ? "default" : it->second.str();
}

// Entries naming a plugin that the search found under no name: typos that
// would otherwise do nothing, silently.
std::vector<std::string> unmatched_entries(const Config& c,
                                           const std::vector<PluginRecord>& plugins) {
  auto found = [&](const std::string& name) {
    return std::any_of(plugins.begin(), plugins.end(),
                       [&](const PluginRecord& p) { return p.name == name; });
  };
  std::vector<std::string> out;
  for (const auto& [name, opts] : c.plugin_options)
    if (!found(name) && !opts.empty())
      out.push_back(
          fmt::format("[options.{}] ({}): no plugin named '{}' was found; its options "
                      "are unused",
                      name, origin(c, "options." + name + "." + opts.begin()->first), name));
  for (const auto& [name, hex] : c.sha256)
    if (!found(name))
      out.push_back(
          fmt::format("plugins.sha256.{} ({}): no plugin named '{}' was found; the pin "
                      "is unused",
                      name, origin(c, "plugins.sha256." + name), name));
  for (const std::string& name : c.allow)
    if (!found(name))
      out.push_back(
          fmt::format("plugins.allow ({}) lists '{}', but no plugin of that name was "
                      "found",
                      origin(c, "plugins.allow"), name));
  return out;
}

}  // namespace

const char* candidate_state_name(DeviceCandidate::State state) {
  switch (state) {
    case DeviceCandidate::State::Chosen:
      return "chosen";
    case DeviceCandidate::State::NotChosen:
      return "not chosen";
    case DeviceCandidate::State::NoDevices:
      return "no devices";
    case DeviceCandidate::State::Failed:
      return "failed";
    case DeviceCandidate::State::Excluded:
      return "excluded";
    case DeviceCandidate::State::NotInstalled:
      return "not installed";
  }
  return "?";
}

Runtime::Runtime(const RuntimeOptions& options) : config_(load_config(options.config_path)) {
  Settings before;
  apply(config_);
  try {
    PluginLoadOptions load = config_.plugin_load_options();
    if (options.probe_plugins) load.probe = *options.probe_plugins;
    plugins_ = load_plugins(load);
  } catch (...) {
    before.restore();  // a failed open changes nothing
    throw;
  }
  owns_plugins_ = true;
  try {
    DeviceChoice choice = choose_device(config_, plugins_);
    device_ = choice.device;
    candidates_ = std::move(choice.candidates);
  } catch (...) {
    unload_plugins();  // a failed open leaves nothing loaded
    owns_plugins_ = false;
    before.restore();
    throw;
  }
  warnings_ = unmatched_entries(config_, plugins_);
  for (const std::string& w : warnings_) logging::get("runtime").warn("{}", w);
  logging::get("runtime").info("chose {}: {}", device_.str(), candidates_.front().reason);
}

Runtime Runtime::open(const RuntimeOptions& options) {
  return Runtime(options);
}

Runtime::Runtime(Runtime&& other) noexcept
    : config_(std::move(other.config_)),
      plugins_(std::move(other.plugins_)),
      candidates_(std::move(other.candidates_)),
      warnings_(std::move(other.warnings_)),
      device_(other.device_),
      owns_plugins_(other.owns_plugins_) {
  other.owns_plugins_ = false;
}

Runtime::~Runtime() {
  if (!owns_plugins_) return;
  try {
    unload_plugins();
  } catch (const std::exception& e) {
    logging::get("runtime").warn("plugins stay loaded until exit: {}", e.what());
  }
}

std::string Runtime::explain() const {
  const DeviceCandidate& chosen = candidates_.front();
  std::string out = fmt::format("chosen: {} ({} device{})\n", chosen.name, chosen.kind,
                                chosen.label.empty() ? "" : ": " + chosen.label);
  out += fmt::format("why: {}\n", chosen.reason);
  if (!chosen.coverage.empty())
    out += fmt::format("note: {} has {}: the others run on the cpu under fallback policy cpu, "
                       "or fail under policy error\n",
                       chosen.name, chosen.coverage);
  out += fmt::format("config: {}\n",
                     config_.path.empty() ? "none found; built-in defaults" : config_.path);
  if (candidates_.size() > 1) out += "not chosen:\n";
  for (size_t i = 1; i < candidates_.size(); ++i)
    out += fmt::format("  {}: {}\n", candidates_[i].name, candidates_[i].reason);
  if (!warnings_.empty()) out += "config warnings:\n";
  for (const std::string& w : warnings_) out += "  " + w + "\n";
  return out;
}

}  // namespace plexus
