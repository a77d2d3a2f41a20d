// The devices the runtime found when the plugin was initialized, and why
// there are none when that is the case; naming a device and making it current.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu.h"
#include "plexus/plugin.h"

namespace plexus::gpu {

class Devices {
 public:
  // Asks the runtime for the devices; never throws: a missing driver or
  // device gives 0 devices and the runtime's own reason.
  Devices();

  int32_t count() const { return static_cast<int32_t>(props_.size()); }
  // Why count() is 0 ("" otherwise), e.g. "cudaGetDeviceCount failed:
  // cudaErrorInsufficientDriver (...); CUDA runtime 13.0, no driver".
  const char* unavailable_reason() const { return reason_.c_str(); }
  // Throws sdk::Error(INVALID_ARGUMENT) naming `what` for a bad index.
  void check_index(int32_t device, const char* what) const;
  void properties(int32_t device, plexus_device_properties& out) const;
  // The device's streaming multiprocessors (compute units); checks the index.
  int multiprocessors(int32_t device) const;

 private:
  std::vector<gpuDeviceProp> props_;
  std::string reason_;
};

// "cuda:0" (or "hip:1", "simt:0"): the device a call runs on, for messages.
std::string device_name(int32_t device);

// Makes `device` current on this thread.
void use_device(int32_t device);

}  // namespace plexus::gpu
