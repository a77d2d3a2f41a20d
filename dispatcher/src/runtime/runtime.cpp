// plexus::Runtime: the config read, applied to the core and dispatcher,
// plugins loaded, and a device chosen (device_choice.cpp).
#include "plexus/runtime.h"

#include <fmt/format.h>

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
  if (c.origins.count("runtime.log_level")) log::set_level(log::parse_level(c.log_level));
  Dispatcher::get().set_fallback_policy(c.fallback);
  set_allocator_options({c.allocator_caching, c.allocator_max_cached_bytes});
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
  apply(config_);
  plugins_ = load_plugins(config_.plugin_load_options());
  owns_plugins_ = true;
  try {
    DeviceChoice choice = choose_device(config_, plugins_);
    device_ = choice.device;
    candidates_ = std::move(choice.candidates);
  } catch (...) {
    unload_plugins();  // a failed open leaves nothing loaded
    throw;
  }
  log::get("runtime").info("chose {}: {}", device_.str(), candidates_.front().reason);
}

Runtime Runtime::open(const RuntimeOptions& options) {
  return Runtime(options);
}

Runtime::Runtime(Runtime&& other) noexcept
    : config_(std::move(other.config_)),
      plugins_(std::move(other.plugins_)),
      candidates_(std::move(other.candidates_)),
      device_(other.device_),
      owns_plugins_(other.owns_plugins_) {
  other.owns_plugins_ = false;
}

Runtime::~Runtime() {
  if (!owns_plugins_) return;
  try {
    unload_plugins();
  } catch (const std::exception& e) {
    log::get("runtime").warn("plugins stay loaded until exit: {}", e.what());
  }
}

std::string Runtime::explain() const {
  const DeviceCandidate& chosen = candidates_.front();
  std::string out = fmt::format("chosen: {} ({} device{})\n", chosen.name, chosen.kind,
                                chosen.label.empty() ? "" : ": " + chosen.label);
  out += fmt::format("why: {}\n", chosen.reason);
  out += fmt::format("config: {}\n",
                     config_.path.empty() ? "none found; built-in defaults" : config_.path);
  if (candidates_.size() > 1) out += "not chosen:\n";
  for (size_t i = 1; i < candidates_.size(); ++i)
    out += fmt::format("  {}: {}\n", candidates_[i].name, candidates_[i].reason);
  return out;
}

}  // namespace plexus
