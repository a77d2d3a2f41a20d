// Choosing the Runtime's device from the config: every candidate the loaded
// plugins and the core offer, ranked by the config's device, prefer list or
// policy, each with the reason it was or was not chosen.
#pragma once

#include <vector>

#include "plexus/config.h"
#include "plexus/runtime.h"

namespace plexus {

struct DeviceChoice {
  Device device;
  std::vector<DeviceCandidate> candidates;  // the chosen one first
};

// Throws Error(NotFound) when the configured device, or every type of the
// prefer list, is unavailable, saying why for each.
DeviceChoice choose_device(const Config& config, const std::vector<PluginRecord>& plugins);

}  // namespace plexus
