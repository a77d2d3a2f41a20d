// ToyBackend: one arena per simulated device.
#include "backend.h"

#include <cstring>
#include <string>

namespace toydev {

ToyBackend::ToyBackend(int32_t devices, size_t memory_per_device) {
  for (int32_t i = 0; i < devices; ++i)
    arenas_.push_back(std::make_unique<Arena>(i, memory_per_device));
}

Arena& ToyBackend::arena(int32_t device) {
  if (device < 0 || device >= device_count())
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "toydev has no device {}", device);
  return *arenas_[size_t(device)];
}

}  // namespace toydev
